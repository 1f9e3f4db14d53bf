// State that must outlive any one evaluation of the module holding it: kept on the global object
// under a registered symbol, made the first time it is asked for. (A shared workerd, or vitest's
// main process with several projects, can evaluate a module more than once.)
export function keptGlobal<T>(name: string, create: () => T): T {
  const key = Symbol.for(name);
  const global = globalThis as Record<symbol, unknown>;
  if (!(key in global)) global[key] = create();
  return global[key] as T;
}
