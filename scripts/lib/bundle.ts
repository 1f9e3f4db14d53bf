// The production bundle, as `wrangler deploy` would upload it: built offline with
// `wrangler deploy --dry-run --outdir`, then listed as Miniflare module definitions.
import { readdirSync } from "node:fs";
import path from "node:path";
import { type ModuleDefinition, type ModuleRule, globsToRegExps, testRegExps } from "miniflare";
import { ensureConsoleBuilt } from "./console-build";
import { wrangler } from "./wrangler";

/** wrangler names each module a rule pulls in `<sha1 of its contents>-<its file name>`. */
const HASHED = /^[0-9a-f]{40}-/;

/**
 * The type of an additional module `file`: the first of `rules` (wrangler.toml's, then wrangler's
 * defaults) whose globs match its original file name. Only the last segment of a glob can be
 * checked, since the bundle keeps the file name and not the directory it came from.
 */
export function moduleType(file: string, rules: ModuleRule[]): ModuleDefinition["type"] {
  const name = file.replace(HASHED, "");
  const rule = rules.find((r) => testRegExps(globsToRegExps(r.include.map((g: string) => g.split("/").at(-1) ?? g)), name));
  if (!rule) throw new Error(`bundle module ${file} matches no module rule (wrangler.toml [[rules]])`);
  return rule.type;
}

/** Writes the bundle `wrangler deploy` would upload into `outdir` (of `entry` over wrangler.toml's bindings when given). */
export function writeBundle(outdir: string, entry?: string): void {
  ensureConsoleBuilt();
  wrangler(["deploy", ...(entry ? [entry] : []), "--dry-run", "--outdir", outdir], { quiet: true });
}

/**
 * Builds the bundle of the Worker whose entry is `main` (wrangler.toml's, or another over its
 * bindings: a benchmark's wiring) into `outdir` and lists its modules, the entry first.
 */
export function buildBundle(outdir: string, main: string, rules: ModuleRule[], otherEntry = false): ModuleDefinition[] {
  writeBundle(outdir, otherEntry ? main : undefined);
  const entry = `${path.parse(main).name}.js`;
  const others = readdirSync(outdir).filter((f) => HASHED.test(f));
  return [{ type: "ESModule", path: path.join(outdir, entry) }, ...others.map((f) => ({ type: moduleType(f, rules), path: path.join(outdir, f) }))];
}
