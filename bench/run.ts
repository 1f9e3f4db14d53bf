// `npm run bench [-- name ...]`: runs the named benchmarks in bench/ (all by default), one after another.
import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import path from "node:path";

const dir = import.meta.dirname;
const available = readdirSync(dir)
  .filter((f) => f.endsWith(".ts") && f !== "run.ts")
  .map((f) => f.replace(/\.ts$/, ""));
const chosen = process.argv.slice(2).length ? process.argv.slice(2) : available;
const unknown = chosen.filter((c) => !available.includes(c));
if (unknown.length) {
  console.error(`Unknown benchmark(s): ${unknown.join(", ")}. Available: ${available.join(", ")}`);
  process.exit(2);
}
for (const name of chosen) {
  console.log(`\n=== ${name} ===`);
  const r = spawnSync("tsx", [path.join(dir, `${name}.ts`)], { stdio: "inherit" });
  if (r.status !== 0) process.exit(r.status ?? 1);
}
