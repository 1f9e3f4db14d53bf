// The admin CLI as an operator runs it: usage and option errors (no database), and create-key's
// refusal of a scope naming an agent the organization does not have, against a temporary local D1
// state in a scratch directory (its control database migrated by wrangler). The commands run
// in-process (scripts/lib/admin-cli.ts, what the entry runs), the database ones on one open local
// D1; the entry itself runs as a process twice: a usage error, and a refusal on the scratch state.
// The AuditEvents its commands on the databases leave in the organizations' trails.
import { spawn, spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { adminCli } from "../../../scripts/lib/admin-cli";
import { openLocalD1 } from "../../../scripts/lib/local-d1";
import { type D1Session, openD1 } from "../../../scripts/lib/wrangler";

const ROOT = path.resolve(import.meta.dirname, "../../..");
const ADMIN = path.join(ROOT, "scripts/admin.ts");
const TSX = path.join(ROOT, "node_modules/.bin/tsx");
const offline = { ...process.env, WRANGLER_SEND_METRICS: "false", CLOUDFLARE_CF_FETCH_ENABLED: "false", WRANGLER_HIDE_BANNER: "true", PATH: `${path.join(ROOT, "node_modules/.bin")}:${process.env.PATH}` };

interface Outcome {
  code: number | null;
  out: string;
  err: string;
}

/** `npm run admin`'s entry as a process (tsx), in `cwd`. */
function adminProcess(args: string[], cwd = ROOT): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    const child = spawn(TSX, [ADMIN, ...args], { cwd, env: offline, timeout: 120_000 });
    let out = "";
    let err = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (out += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (err += chunk));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, out, err }));
  });
}

/** The same commands in-process, on `d1` when given, each output line ending as on a terminal. */
async function admin(args: string[], d1?: D1Session): Promise<Outcome> {
  let out = "";
  let err = "";
  const code = await adminCli(args, { out: (text) => (out += `${text}\n`), err: (text) => (err += `${text}\n`), ...(d1 ? { d1 } : {}) });
  return { code, out, err };
}

describe("admin CLI usage", () => {
  it.each([["--help"], ["-h"], []])("prints the usage for %j and exits 0", async (...args) => {
    const r = await admin(args);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^Usage: npm run admin -- <command>/);
    for (const command of ["create-org", "list-orgs", "move-org", "purge-audit", "set-limits", "create-key", "list-keys", "revoke-key", "new-key-secret"]) expect(r.out).toContain(command);
  });

  it("prints a command's usage for its --help", async () => {
    const r = await admin(["create-key", "--help"]);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^Usage: npm run admin -- create-key --org ID --role/);
  });

  it.each([
    [["--nope"], "Error: Unknown option '--nope'"],
    [["create-key", "--org", "o", "--role", "admin", "--bogus"], "Error: Unknown option '--bogus'"],
    [["list-orgs", "--org", "o"], "Error: list-orgs takes no --org"],
    [["list-keys"], "Error: list-keys needs --org"],
    [["frobnicate"], "Error: Unknown command frobnicate"],
  ])("refuses %j with one line and the usage, exit 2", async (args, line) => {
    const r = await admin(args);
    expect(r.code).toBe(2);
    const [first, blank, usage] = r.err.split("\n");
    expect(first).toBe(line);
    expect(blank).toBe("");
    expect(usage).toMatch(/^Usage: npm run admin -- /);
  });

  it("as a process: the usage on stdout and exit 0, a usage error on stderr and exit 2", { timeout: 120_000 }, async () => {
    const [help, refused] = await Promise.all([adminProcess(["--help"]), adminProcess(["frobnicate"])]);
    expect(help.code).toBe(0);
    expect(help.out).toMatch(/^Usage: npm run admin -- <command>/);
    expect(refused.code).toBe(2);
    expect(refused.out).toBe("");
    expect(refused.err.split("\n").slice(0, 3)).toEqual(["Error: Unknown command frobnicate", "", expect.stringMatching(/^Usage: npm run admin -- /)]);
  });
});

describe("admin CLI create-key", () => {
  let dir: string;
  /** The scratch state, open in this process once the CLI process has run (one runtime for the in-process commands). */
  let session: D1Session | undefined;
  const state = async () => {
    if (!session) {
      session = await openD1({ config: path.join(dir, "wrangler.toml"), persistTo: path.join(dir, ".wrangler/state") });
      await session.applyMigrations();
    }
    return session;
  };

  beforeAll(async () => {
    // A scratch project: the same wrangler.toml and migrations, its own .wrangler/state.
    dir = mkdtempSync(path.join(tmpdir(), "cdis-admin-test-"));
    cpSync(path.join(ROOT, "wrangler.toml"), path.join(dir, "wrangler.toml"));
    symlinkSync(path.join(ROOT, "migrations"), path.join(dir, "migrations"));
    const now = new Date().toISOString();
    const org = (id: string) => `INSERT INTO organizations (id, name, limits, created_at) VALUES ('${id}', '${id}', '{}', '${now}');`;
    const agent = (orgId: string, id: string) =>
      `INSERT INTO agents (org_id, id, name, agent_type, description, model_config, system_prompt, prompt_template, tools, status, deployed, version, created_at, updated_at) VALUES ('${orgId}', '${id}', 'x', 'custom', '', '{}', '', '{{input}}', '[]', 'active', 0, 0, '${now}', '${now}');`;
    // The control database as wrangler migrates it, so the CLI takes over a state wrangler made
    // (every existing .wrangler/state); the shard in-process, as npm start does (a wrangler
    // process per data migration took most of this file's time).
    expect(spawnSync("wrangler", ["d1", "migrations", "apply", "cdis", "--local"], { cwd: dir, env: offline }).status).toBe(0);
    const local = await openLocalD1(path.join(dir, "wrangler.toml"), path.join(dir, ".wrangler/state"));
    try {
      await local.applyMigrations("cdis-shard-0");
      // Organizations in the control database (on SHARD_0 by default), their agents in the shard.
      await local.exec("cdis", org("org-a") + org("org-b"));
      await local.exec("cdis-shard-0", agent("org-a", "agent-a") + agent("org-b", "agent-b"));
    } finally {
      await local.close();
    }
  }, 180_000);

  afterEach(() => {
    vi.unstubAllEnvs();
  });
  afterAll(async () => {
    await session?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("refuses a scope naming an agent the organization does not have, and creates no key (as a process)", async () => {
    const r = await adminProcess(["create-key", "--org", "org-a", "--role", "service", "--scopes", "agent/agent-a:execute,agent/nope:execute,agent/agent-b:execute"], dir);
    expect(r.code).toBe(1);
    expect(r.err).toContain("No agent nope, agent-b in organization org-a");
    expect(await (await state()).execSql("SELECT COUNT(*) AS n FROM api_keys")).toEqual([{ n: 0 }]);
  }, 120_000);

  it("creates a key scoped to an agent of the organization", async () => {
    const r = await admin(["create-key", "--org", "org-a", "--role", "service", "--scopes", "agent/agent-a:execute"], await state());
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out)).toMatchObject({ org_id: "org-a", role: "service" });
  }, 120_000);

  it("creates organizations on the emptier pooled shard, or on the one named, and lists their shards", async () => {
    const d1 = await state();
    const placed = JSON.parse((await admin(["create-org", "--name", "New"], d1)).out) as { id: string; shard: string };
    expect(placed.shard).toBe("SHARD_1");
    expect(JSON.parse((await admin(["create-org", "--name", "Named", "--shard", "SHARD_0"], d1)).out)).toMatchObject({ shard: "SHARD_0" });
    const unknown = await admin(["create-org", "--name", "Nowhere", "--shard", "SHARD_7"], d1);
    expect(unknown.code).toBe(1);
    expect(unknown.err).toContain("No shard SHARD_7; DATA_SHARDS lists SHARD_0, SHARD_1");
    const listed = JSON.parse((await admin(["list-orgs"], d1)).out) as { id: string; shard: string; moving_to: string | null }[];
    expect(listed.find((o) => o.id === placed.id)).toMatchObject({ shard: "SHARD_1", moving_to: null });
  }, 180_000);

  it("leaves the AuditEvent of each change and each refusal in the organization's trail, the operator as agent", async () => {
    const d1 = await state();
    const created = await admin(["create-key", "--org", "org-b", "--role", "clinician"], d1);
    expect(created.code, created.err).toBe(0);
    const key = JSON.parse(created.out) as { id: string; key: string };
    expect((await admin(["revoke-key", "--org", "org-b", "--id", key.id], d1)).code).toBe(0);
    const again = await admin(["revoke-key", "--org", "org-b", "--id", key.id], d1);
    expect(again.code).toBe(1);
    expect(again.err).toContain(`No active key ${key.id} in organization org-b`);
    const org = JSON.parse((await admin(["create-org", "--name", "Audited", "--shard", "SHARD_0"], d1)).out) as { id: string };
    expect((await admin(["create-org", "--name", "Again", "--id", org.id], d1)).code).toBe(0);

    // The shard's pending log, which the service indexes before any AuditEvent read (docs/audit.md).
    const rows = await d1.execSql<{ org_id: string; content: string }>("SELECT org_id, content FROM fhir_audit_pending ORDER BY id", "cdis-shard-0");
    type Event = { subtype: { code: string }[]; outcome: string; outcomeDesc?: string; agent: { altId: string; who: { display: string } }[]; entity: { what?: { identifier: { value: string } }; detail?: { type: string; valueString: string }[] }[]; source: { site: string } };
    // This test's organizations (the earlier tests created others on this shard too).
    const ours = new Set(["org-a", "org-b", org.id]);
    const events = rows.filter((r) => ours.has(r.org_id)).map((r) => ({ org: r.org_id, event: JSON.parse(r.content) as Event }));
    const summary = events.map(({ org, event: e }) => [org, e.subtype[1]?.code, e.outcome, e.entity[0]?.what?.identifier.value ?? null]);
    expect(summary).toEqual([
      ["org-a", "api_key.create", "4", null], // the refused scope, earlier in this file
      ["org-a", "api_key.create", "0", expect.any(String)],
      ["org-b", "api_key.create", "0", key.id],
      ["org-b", "api_key.revoke", "0", key.id],
      ["org-b", "api_key.revoke", "4", key.id],
      [org.id, "organization.create", "0", org.id],
      [org.id, "organization.create", "4", org.id],
    ]);
    for (const { org: orgId, event } of events) {
      expect(event.agent[0]).toMatchObject({ altId: "operator", who: { display: "admin CLI (database)" } });
      expect(event.source.site).toBe(orgId);
    }
    expect(events[0]!.event.outcomeDesc).toContain("No agent nope, agent-b in organization org-a");
    expect(events[2]!.event.entity[0]?.detail).toEqual([{ type: "command", valueString: "create-key" }]);
    expect(JSON.stringify(events)).not.toContain(key.key);
  }, 180_000);

  it("move-org says clearly when no service answers", async () => {
    vi.stubEnv("OPERATOR_TOKEN", "t");
    const r = await admin(["move-org", "--org", "org-a", "--shard", "SHARD_1", "--url", "http://127.0.0.1:9"], await state());
    expect(r.code).toBe(1);
    expect(r.err).toContain("did not answer");
  }, 120_000);

  it("purge-audit goes through the service's operator route and says clearly when none answers", async () => {
    vi.stubEnv("OPERATOR_TOKEN", "t");
    const r = await admin(["purge-audit", "--org", "org-a", "--url", "http://127.0.0.1:9"], await state());
    expect(r.code).toBe(1);
    expect(r.err).toContain("did not answer");
    const usage = await admin(["purge-audit"], await state());
    expect(usage.code).toBe(2);
    expect(usage.err).toContain("--org");
  }, 120_000);
});
