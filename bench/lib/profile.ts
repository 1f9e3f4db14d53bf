// CPU profiles of the Worker under `wrangler dev` through its V8 inspector (Chrome
// DevTools protocol: Profiler.start / Profiler.stop), and a summary of where the time
// went: self time per function and per source file. Only the Worker's isolate is seen;
// the local D1 and Durable Object storage run elsewhere in workerd and show as idle.
// Uses the global WebSocket of Node >= 22 (the node@22 dev dependency runs npm scripts).

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

export interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

export interface Profiler {
  stop(): Promise<CpuProfile>;
  close(): void;
}

/**
 * Connects to the inspector on `port` (wrangler dev --inspector-port, or Miniflare's inspectorPort)
 * and starts sampling the first target, or the first whose title contains `target` (workerd lists
 * one per Worker, e.g. `core:user:<name>`).
 */
export async function startProfiler(port: number, intervalUs = 200, target?: string): Promise<Profiler> {
  const targets = (await (await fetch(`http://127.0.0.1:${port}/json`)).json()) as { webSocketDebuggerUrl: string; title?: string; id?: string }[];
  const url = (target ? targets.find((t) => `${t.title ?? ""} ${t.id ?? ""}`.includes(target)) : targets[0])?.webSocketDebuggerUrl;
  if (!url) throw new Error(`no inspector target on port ${port}`);
  // wrangler's inspector proxy accepts only local origins; Node's WebSocket takes headers as a second argument.
  const ws = new WebSocket(url, { headers: { origin: "http://localhost" } } as unknown as string[]);
  await new Promise((resolve, reject) => {
    ws.addEventListener("open", resolve, { once: true });
    ws.addEventListener("error", () => reject(new Error(`cannot connect to ${url}`)), { once: true });
  });
  let next = 1;
  const waiting = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  ws.addEventListener("message", (event) => {
    const msg = JSON.parse(String(event.data)) as { id?: number; result?: unknown; error?: { message: string } };
    const w = msg.id === undefined ? undefined : waiting.get(msg.id);
    if (!w) return;
    waiting.delete(msg.id!);
    if (msg.error) w.reject(new Error(msg.error.message));
    else w.resolve(msg.result);
  });
  const call = (method: string, params: Record<string, unknown> = {}) =>
    new Promise<unknown>((resolve, reject) => {
      const id = next++;
      waiting.set(id, { resolve, reject });
      ws.send(JSON.stringify({ id, method, params }));
    });
  await call("Profiler.enable");
  await call("Profiler.setSamplingInterval", { interval: intervalUs });
  await call("Profiler.start");
  return {
    async stop() {
      const { profile } = (await call("Profiler.stop")) as { profile: CpuProfile };
      return profile;
    },
    close: () => ws.close(),
  };
}

/** Self time (ms) per function and per file, the largest first, and the share the isolate was busy. */
export function summarize(profile: CpuProfile, top = 25): string {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map<number, number>();
  for (const [i, id] of profile.samples.entries()) self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000);
  const fns = new Map<string, number>();
  const files = new Map<string, number>();
  let total = 0;
  let idle = 0;
  for (const [id, ms] of self) {
    const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
    total += ms;
    if (functionName === "(idle)") idle += ms;
    const file = url.replace(/^.*\/(src|durable-objects|node_modules)\//, "$1/") || "(native)";
    const fn = `${functionName || "(anonymous)"} ${file}:${lineNumber + 1}`;
    fns.set(fn, (fns.get(fn) ?? 0) + ms);
    files.set(file, (files.get(file) ?? 0) + ms);
  }
  const table = (m: Map<string, number>) =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([k, ms]) => `  ${ms.toFixed(0).padStart(7)} ms ${((ms / total) * 100).toFixed(1).padStart(5)}%  ${k}`)
      .join("\n");
  return `profile ${total.toFixed(0)} ms, busy ${(total - idle).toFixed(0)} ms\nself time by function:\n${table(fns)}\nself time by file:\n${table(files)}`;
}
