// Part of `npm run check`: builds the production bundle with `wrangler deploy
// --dry-run` (proves it bundles) and prints its size.
import { mkdtempSync, readdirSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { gzipSync } from "node:zlib";
import { readFileSync } from "node:fs";
import { writeBundle } from "./lib/bundle";

const outdir = mkdtempSync(path.join(tmpdir(), "cdis-bundle-"));
writeBundle(outdir);
for (const file of readdirSync(outdir).filter((f) => f.endsWith(".js"))) {
  const full = path.join(outdir, file);
  const size = statSync(full).size;
  const gz = gzipSync(readFileSync(full)).length;
  console.log(`bundle ${file}: ${(size / 1024).toFixed(1)} KiB (${(gz / 1024).toFixed(1)} KiB gzipped)`);
}
