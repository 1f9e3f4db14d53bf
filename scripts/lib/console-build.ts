// The web console's build (console/ → console/dist, which wrangler.toml [assets] serves). wrangler
// refuses to bundle or run while that directory is missing, so every path that starts the Worker
// (npm start, npm run dev, benches, interop and browser tests) builds it first if needed.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";

const ROOT = path.resolve(import.meta.dirname, "../..");
export const CONSOLE_DIST = path.join(ROOT, "console/dist");

/** Builds the console with Vite; `quiet` keeps its output unless it fails. */
export function buildConsole(opts: { quiet?: boolean } = {}): void {
  const result = spawnSync(path.join(ROOT, "node_modules/.bin/vite"), ["build", "--config", path.join(ROOT, "console/vite.config.ts"), "--logLevel", opts.quiet ? "warn" : "info"], {
    cwd: ROOT,
    encoding: "utf8",
    stdio: opts.quiet ? "pipe" : ["ignore", "inherit", "inherit"],
  });
  if (result.status !== 0) throw new Error(`the console build failed:\n${result.stderr ?? ""}${result.stdout ?? ""}`);
}

/** Builds the console unless a build is there already. */
export function ensureConsoleBuilt(): void {
  if (!existsSync(path.join(CONSOLE_DIST, "index.html"))) buildConsole({ quiet: true });
}
