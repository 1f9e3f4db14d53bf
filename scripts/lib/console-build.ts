// The web console's build (console/ → console/dist, which wrangler.toml [assets] serves). wrangler
// refuses to bundle or run while that directory is missing, so every path that starts the Worker
// (npm start, npm run dev, benches, interop and browser tests) builds it first if needed.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from "node:fs";
import path from "node:path";

const ROOT = path.resolve(import.meta.dirname, "../..");
export const CONSOLE_DIST = path.join(ROOT, "console/dist");
/** Ignored by git (.gitignore `.tmp/`) and on the same file system as console/dist, so a rename moves a file. */
const STAGING_ROOT = path.join(ROOT, ".tmp");

const sameContent = (a: string, b: string) => existsSync(b) && statSync(b).isFile() && statSync(a).size === statSync(b).size && readFileSync(a).equals(readFileSync(b));

/**
 * Makes `to` hold what `from` holds, moving files out of `from`: a changed or new file is renamed
 * into place (atomic, so a reader sees the old file or the new one, never a part), an unchanged one
 * is left alone (no change for a watcher to see), and what `from` lacks is removed last. HTML goes
 * after the assets it names.
 */
export function syncInto(from: string, to: string): void {
  mkdirSync(to, { recursive: true });
  const entries = readdirSync(from, { withFileTypes: true }).sort((a, b) => Number(a.name.endsWith(".html")) - Number(b.name.endsWith(".html")));
  for (const entry of entries) {
    const [source, target] = [path.join(from, entry.name), path.join(to, entry.name)];
    if (entry.isDirectory()) {
      if (existsSync(target) && !statSync(target).isDirectory()) rmSync(target, { force: true });
      syncInto(source, target);
    } else {
      if (existsSync(target) && statSync(target).isDirectory()) rmSync(target, { recursive: true, force: true });
      if (!sameContent(source, target)) renameSync(source, target);
    }
  }
  const built = new Set(entries.map((e) => e.name));
  for (const stale of readdirSync(to).filter((name) => !built.has(name))) rmSync(path.join(to, stale), { recursive: true, force: true });
}

/**
 * Builds the console with Vite into a staging folder, then syncs console/dist to it, so a service
 * serving console/dist meanwhile (npm start, wrangler dev, the interop, bridge and browser tests'
 * services) never finds it empty or half written. `quiet` keeps Vite's output unless it fails.
 */
export function buildConsole(opts: { quiet?: boolean } = {}): void {
  mkdirSync(STAGING_ROOT, { recursive: true });
  const staging = mkdtempSync(path.join(STAGING_ROOT, "console-dist-"));
  try {
    buildConsoleInto(staging, opts);
    syncInto(staging, CONSOLE_DIST);
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

/**
 * Vite's production build of the console into `outDir`. NODE_ENV is set, not inherited: Vite keeps
 * a NODE_ENV it finds, and under vitest (NODE_ENV=test: npm start's test) it built React's
 * development bundle under other file names, so a rebuild replaced the console a running service
 * was serving (docs/testing.md, "Console builds while a service serves it").
 */
export function buildConsoleInto(outDir: string, opts: { quiet?: boolean } = {}): void {
  const args = ["build", "--config", path.join(ROOT, "console/vite.config.ts"), "--outDir", outDir, "--emptyOutDir", "--logLevel", opts.quiet ? "warn" : "info"];
  const env = { ...process.env, NODE_ENV: "production" };
  const result = spawnSync(path.join(ROOT, "node_modules/.bin/vite"), args, { cwd: ROOT, env, encoding: "utf8", stdio: opts.quiet ? "pipe" : ["ignore", "inherit", "inherit"] });
  if (result.status !== 0) throw new Error(`the console build failed:\n${result.stderr ?? ""}${result.stdout ?? ""}`);
}

/** Builds the console unless a build is there already. */
export function ensureConsoleBuilt(): void {
  if (!existsSync(path.join(CONSOLE_DIST, "index.html"))) buildConsole({ quiet: true });
}
