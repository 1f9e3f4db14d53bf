// Runtime import cycles, found with dpdm. Modules are transformed to JavaScript first,
// so `import type` (erased at runtime) never counts: only imports that run do.
import { parseCircular, parseDependencyTree } from "dpdm";

/** The source trees whose runtime import graph must be acyclic. */
export const CHECKED_SOURCES = ["src/**/*.ts", "bridge/src/**/*.ts"];

/** Each cycle as the list of files on it (relative to `cwd`), empty when there is none. */
export async function runtimeImportCycles(cwd: string, sources: string[] = CHECKED_SOURCES): Promise<string[][]> {
  const tree = await parseDependencyTree(sources, { cwd, context: cwd, transform: true, tsconfig: undefined });
  return parseCircular(tree);
}
