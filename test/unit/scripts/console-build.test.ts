// The console build's last step: console/dist made to hold a fresh build without a service that
// serves it meanwhile ever finding a file missing or half written (npm start's test rebuilds it
// while the interop, bridge and browser tests' services run), and an unchanged file left alone.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { buildConsoleInto, syncInto } from "../../../scripts/lib/console-build";

let scratch: string;
afterEach(() => rmSync(scratch, { recursive: true, force: true }));

/** Writes `files` (relative path → content) under a new folder of the scratch directory. */
function tree(name: string, files: Record<string, string>): string {
  const root = path.join(scratch, name);
  for (const [file, content] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    writeFileSync(path.join(root, file), content);
  }
  return root;
}

function contents(root: string, dir = ""): Record<string, string> {
  const out: Record<string, string> = {};
  for (const e of readdirSync(path.join(root, dir), { withFileTypes: true })) {
    const rel = path.join(dir, e.name);
    if (e.isDirectory()) Object.assign(out, contents(root, rel));
    else out[rel] = readFileSync(path.join(root, rel), "utf8");
  }
  return out;
}

describe("console build sync", () => {
  it("replaces changed files, adds new ones, removes stale ones and leaves unchanged ones untouched", () => {
    scratch = mkdtempSync(path.join(tmpdir(), "console-sync-"));
    const dist = tree("dist", { "index.html": "old <script src=/assets/a-1.js>", "_headers": "same", "assets/a-1.js": "a1", "assets/b.js": "b", "gone/x.js": "x" });
    const unchanged = statSync(path.join(dist, "assets/b.js"));
    const build = tree("build", { "index.html": "new <script src=/assets/a-2.js>", "_headers": "same", "assets/a-2.js": "a2", "assets/b.js": "b" });

    syncInto(build, dist);

    expect(contents(dist)).toEqual({ "index.html": "new <script src=/assets/a-2.js>", "_headers": "same", "assets/a-2.js": "a2", "assets/b.js": "b" });
    // The same inode: never rewritten, so a watcher sees no change and a reader no gap.
    expect(statSync(path.join(dist, "assets/b.js")).ino).toBe(unchanged.ino);
    expect(existsSync(path.join(dist, "gone"))).toBe(false);
  });

  it("creates the target when there is none, and an unchanged build changes nothing", () => {
    scratch = mkdtempSync(path.join(tmpdir(), "console-sync-"));
    const files = { "index.html": "page", "assets/app.js": "app" };
    const dist = path.join(scratch, "dist");
    syncInto(tree("first", files), dist);
    expect(contents(dist)).toEqual(files);
    const before = readdirSync(dist, { recursive: true, withFileTypes: true }).map((e) => `${e.name}:${statSync(path.join(e.parentPath, e.name)).ino}`);
    syncInto(tree("second", files), dist);
    expect(readdirSync(dist, { recursive: true, withFileTypes: true }).map((e) => `${e.name}:${statSync(path.join(e.parentPath, e.name)).ino}`)).toEqual(before);
  });

  it("replaces a file by a folder of the same name and the other way round", () => {
    scratch = mkdtempSync(path.join(tmpdir(), "console-sync-"));
    const dist = tree("dist", { "assets": "a file", "img/logo.svg": "svg" });
    syncInto(tree("build", { "assets/app.js": "app", "img": "now a file" }), dist);
    expect(contents(dist)).toEqual({ "assets/app.js": "app", img: "now a file" });
  });
});

describe("console build", () => {
  // npm start's test runs npm start under vitest (NODE_ENV=test); its build used to be React's
  // development bundle under other names, replacing the console the shared test service served.
  it("is the production build whatever NODE_ENV its caller has", { timeout: 120_000 }, () => {
    scratch = mkdtempSync(path.join(tmpdir(), "console-build-"));
    expect(process.env.NODE_ENV).toBe("test");
    const [underTest, plain] = [path.join(scratch, "under-test"), path.join(scratch, "plain")];
    buildConsoleInto(underTest, { quiet: true });
    const { NODE_ENV: _, ...env } = process.env;
    const root = path.resolve(import.meta.dirname, "../../..");
    const vite = spawnSync(path.join(root, "node_modules/.bin/vite"), ["build", "--config", path.join(root, "console/vite.config.ts"), "--outDir", plain, "--logLevel", "warn"], { cwd: root, env, encoding: "utf8" });
    expect(vite.status, vite.stderr).toBe(0);
    expect(contents(underTest)).toEqual(contents(plain));
  });
});
