// The in-process local D1 (scripts/lib/local-d1.ts) leaves the state wrangler would: wrangler's own
// `d1 migrations apply --local` finds nothing left to apply, and `d1 execute --local` reads the rows
// written here from the same files. (The other direction, a state wrangler migrated, is the admin
// CLI test's: its scratch state is made with wrangler, then migrated and used by the CLI.)
import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { offlineEnv, openD1 } from "../../../scripts/lib/wrangler";

const ROOT = path.resolve(import.meta.dirname, "../../..");
const env = { ...offlineEnv, PATH: `${path.join(ROOT, "node_modules/.bin")}:${process.env.PATH}` };

function wrangler(args: string[]): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn("wrangler", args, { cwd: ROOT, env, timeout: 120_000 });
    let out = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (out += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (out += chunk));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, out }));
  });
}

const sqlFiles = (set: string) => readdirSync(path.join(ROOT, "migrations", set)).filter((f) => f.endsWith(".sql")).sort();

describe("local D1 in one process", () => {
  let state: string;

  beforeAll(async () => {
    state = mkdtempSync(path.join(tmpdir(), "cdis-local-d1-"));
    const d1 = await openD1({ persistTo: state });
    try {
      await d1.applyMigrations();
      // Applying again finds nothing to do, as wrangler's would.
      await d1.applyMigrations();
      await d1.execSql("INSERT INTO organizations (id, name, limits, created_at) VALUES ('org-x', 'X', '{}', '2026-01-01T00:00:00Z')");
      expect(await d1.execSql("SELECT id, shard FROM organizations")).toEqual([{ id: "org-x", shard: "SHARD_0" }]);
    } finally {
      await d1.close();
    }
  }, 120_000);

  afterAll(() => rmSync(state, { recursive: true, force: true }));

  it("leaves wrangler nothing to apply, in the control database and a shard", async () => {
    for (const database of ["cdis", "cdis-shard-1"]) {
      const r = await wrangler(["d1", "migrations", "apply", database, "--local", "--persist-to", state]);
      expect(r.code, r.out).toBe(0);
      expect(r.out).toContain("No migrations to apply");
    }
  }, 120_000);

  it("writes the d1_migrations rows and data wrangler reads back", async () => {
    const r = await wrangler(["d1", "execute", "cdis", "--local", "--persist-to", state, "--json", "--command", "SELECT name FROM d1_migrations ORDER BY id; SELECT id FROM organizations"]);
    expect(r.code, r.out).toBe(0);
    const [migrations, orgs] = JSON.parse(r.out) as { results: Record<string, unknown>[] }[];
    expect(migrations!.results.map((m) => m.name)).toEqual(sqlFiles("control"));
    expect(orgs!.results).toEqual([{ id: "org-x" }]);
  }, 120_000);
});
