// Import cycles, found with dpdm. Type imports count: a cycle of types is still two modules that
// cannot be understood (or moved) one without the other, so `import type` is followed like any
// import (dpdm follows it when it parses TypeScript untransformed).
import { parseCircular, parseDependencyTree } from "dpdm";

/** The source trees whose import graph must be acyclic. */
export const CHECKED_SOURCES = ["src/**/*.ts", "bridge/src/**/*.ts"];

/** Each cycle as the list of files on it (relative to `cwd`), empty when there is none. */
export async function importCycles(cwd: string, sources: string[] = CHECKED_SOURCES): Promise<string[][]> {
  const tree = await parseDependencyTree(sources, { cwd, context: cwd, transform: false, tsconfig: undefined });
  return parseCircular(tree);
}
