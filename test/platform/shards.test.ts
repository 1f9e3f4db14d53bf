// Organizations on different data shards: each org's rows live only in its shard and no API
// shows them to another org; moving an org keeps all of its data, audit, export files,
// conversations and keys; writes pause (503 + Retry-After) while it moves; a move that fails
// verification leaves the org where it was.
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { forgetCachedKeys } from "../../src/features/tenancy/middleware/auth";
import { placementOf } from "../../src/platform/directory";
import { type MoveOptions, moveOrganization } from "../../src/platform/org-move";
import { allDatabases, shardDatabase } from "../../src/platform/shards";
import { installAgentFakes } from "../support/agent-fakes";
import { type Tenant, createTenant } from "../support/tenants";
import { rowsIn, seed, snapshot } from "./seed";

beforeAll(installAgentFakes);

// This isolate is the only one: forgetting its caches is all the settling a move needs here.
const quick: MoveOptions = { settle: async () => {}, onDirectoryChange: forgetCachedKeys };
const other = (shard: string) => (shard === "SHARD_0" ? "SHARD_1" : "SHARD_0");

async function directoryRow(orgId: string) {
  return env.DB.prepare("SELECT shard, moving_to FROM organizations WHERE id = ?1").bind(orgId).first<{ shard: string; moving_to: string | null }>();
}

describe("data shards", () => {
  it("keeps each organization's rows in its own shard and shows them to no other org", async () => {
    const a = await createTenant({ shard: "SHARD_0" });
    const b = await createTenant({ shard: "SHARD_1" });
    const s = await seed(a);

    const inA = await rowsIn(env.SHARD_0, a.orgId);
    for (const table of ["fhir_resources", "fhir_history", "pipelines", "executions", "inbound_messages", "agents", "agent_conversations", "connectors", "tools"]) {
      expect(inA[table], table).toBeGreaterThan(0);
    }
    expect(await rowsIn(env.SHARD_1, a.orgId)).toEqual({});

    const fhirB = (path: string) => b.fetch(`/fhir/r4/${b.orgId}${path}`);
    expect((await fhirB(`/Patient/${s.patientId}`)).status).toBe(404);
    expect((await fhirB(`/Patient/${s.patientId}/_history`)).status).toBe(404);
    expect(((await (await fhirB("/Patient")).json()) as { entry?: unknown[] }).entry ?? []).toEqual([]);
    // B's key cannot name A's org either.
    expect((await b.fetch(`/fhir/r4/${a.orgId}/Patient/${s.patientId}`)).status).toBe(403);
    expect((await b.fetch(`/api/pipelines/${s.pipelineId}`)).status).toBe(404);
    expect((await b.fetch(`/api/executions/${s.executionId}`)).status).toBe(404);
    expect((await b.fetch(`/api/hl7/messages/${s.messageId}`)).status).toBe(404);
    expect((await b.fetch(`/api/agents/${s.agentId}`)).status).toBe(404);
    expect((await b.fetch(s.exportFile)).status).toBeGreaterThanOrEqual(400);
    for (const list of ["/api/pipelines", "/api/executions", "/api/hl7/messages", "/api/agents", "/api/connectors", "/api/tools"]) {
      const body = (await (await b.fetch(list)).json()) as { total_count: number };
      expect(body.total_count, list).toBe(0);
    }
  });

  it("places new organizations on the emptier pooled shard, and a named one on that shard", async () => {
    const counts = async () => {
      const { results } = await env.DB.prepare("SELECT shard, COUNT(*) AS n FROM organizations GROUP BY shard").all<{ shard: string; n: number }>();
      return Object.fromEntries(results.map((r) => [r.shard, r.n]));
    };
    const before = await counts();
    const emptier = (before.SHARD_0 ?? 0) <= (before.SHARD_1 ?? 0) ? "SHARD_0" : "SHARD_1";
    expect((await createTenant()).shard).toBe(emptier);
    expect((await createTenant({ shard: "SHARD_1" })).shard).toBe("SHARD_1");
    await expect(createTenant({ shard: "SHARD_7" })).rejects.toMatchObject({ status: 500, code: "CONFIGURATION_ERROR" });
  });

  it("answers CONFIGURATION_ERROR, not a stack, for an org the directory puts on an undeclared shard", async () => {
    const t = await createTenant();
    await env.DB.prepare("UPDATE organizations SET shard = 'SHARD_9' WHERE id = ?1").bind(t.orgId).run();
    forgetCachedKeys();
    const res = await t.fetch("/api/pipelines");
    expect(res.status).toBe(500);
    expect(((await res.json()) as { error: { code: string; message: string } }).error).toMatchObject({ code: "CONFIGURATION_ERROR", message: expect.stringContaining("SHARD_9") });
  });

  it("moves an organization with all its data, history, audit events, export files and conversations; its keys keep working", { timeout: 30_000 }, async () => {
    const t = await createTenant();
    const s = await seed(t);
    const before = await snapshot(t, s);
    const source = t.shard;
    const rows = await rowsIn(shardDatabase(env, source), t.orgId);

    const report = await moveOrganization(env, t.orgId, other(source), quick);
    expect(report).toMatchObject({ orgId: t.orgId, from: source, to: other(source) });
    expect(report.tables.find((x) => x.table === "fhir_resources")?.rows).toBe(rows.fhir_resources);
    expect(await directoryRow(t.orgId)).toEqual({ shard: other(source), moving_to: null });
    expect(await rowsIn(shardDatabase(env, source), t.orgId)).toEqual({});
    const moved = await rowsIn(shardDatabase(env, other(source)), t.orgId);
    // The snapshot read itself audited more (AuditEvents, pending or indexed); everything else is as it was.
    expect({ ...moved, fhir_audit_pending: 0, fhir_idx_token: 0, fhir_resources: 0 }).toEqual({ ...rows, fhir_audit_pending: 0, fhir_idx_token: 0, fhir_resources: 0 });

    const after = await snapshot(t, s);
    expect({ ...after, audits: [] }).toEqual({ ...before, audits: [] });
    expect(after.audits).toEqual(expect.arrayContaining(before.audits));
    // Writes work again, on the new shard.
    expect((await t.fetch(`/fhir/r4/${t.orgId}/Patient`, { method: "POST", json: { resourceType: "Patient" } })).status).toBe(201);
    expect((await rowsIn(shardDatabase(env, source), t.orgId)).fhir_resources).toBeUndefined();
  });

  it("moves into a shard that holds another organization's messages, pipelines, executions and audits: the new shard numbers the messages", { timeout: 60_000 }, async () => {
    const t = await createTenant();
    const target = other(t.shard);
    const resident = await createTenant({ shard: target });
    const residents = await seed(resident);
    const s = await seed(t);
    // Messages of both orgs now hold the same per-shard numbers on their own shards.
    const more = ["MSG00002", "MSG00003"].map((id, i) => ({ id: `m-${i + 2}`, raw: `MSH|^~\\&|ADTSYS|GENHOSP|CDIS|CDIS|20260315083000+0100||ADT^A01^ADT_A01|${id}|P|2.5.1\rPID|1||47${i}^^^GENHOSP^MR||Order^Kept||19640812|F` }));
    expect((await t.fetch("/api/v1/hl7/messages", { method: "POST", json: { messages: more } })).status).toBe(200);
    const order = async (x: Tenant) => ((await (await x.fetch("/api/hl7/messages?limit=100")).json()) as { messages: { id: string }[] }).messages.map((m) => m.id);
    const before = { mine: await snapshot(t, s), order: await order(t), theirs: await snapshot(resident, residents), theirRows: await rowsIn(shardDatabase(env, target), resident.orgId) };

    await moveOrganization(env, t.orgId, target, quick);

    expect(await directoryRow(t.orgId)).toEqual({ shard: target, moving_to: null });
    expect(await order(t)).toEqual(before.order);
    const after = await snapshot(t, s);
    expect({ ...after, audits: [] }).toEqual({ ...before.mine, audits: [] });
    // The resident org is as it was, and its messages keep their numbers.
    expect({ ...(await snapshot(resident, residents)), audits: [] }).toEqual({ ...before.theirs, audits: [] });
    expect({ ...(await rowsIn(shardDatabase(env, target), resident.orgId)), fhir_audit_pending: 0, fhir_idx_token: 0, fhir_resources: 0 }).toEqual({ ...before.theirRows, fhir_audit_pending: 0, fhir_idx_token: 0, fhir_resources: 0 });
    // A message received after the move follows the moved ones.
    const next = { id: "m-9", raw: more[0]!.raw.replace("MSG00002", "MSG00009") };
    expect((await t.fetch("/api/v1/hl7/messages", { method: "POST", json: { messages: [next] } })).status).toBe(200);
    expect((await order(t))[0]).not.toBe(before.order[0]);
    expect((await order(t)).slice(1)).toEqual(before.order);
  });

  it("answers writes 503 with Retry-After while the org moves, in both error shapes, and keeps serving reads", { timeout: 30_000 }, async () => {
    const t = await createTenant();
    const p = (await (await t.fetch(`/fhir/r4/${t.orgId}/Patient`, { method: "POST", json: { resourceType: "Patient" } })).json()) as { id: string };
    const seen: Record<string, unknown> = {};
    await moveOrganization(env, t.orgId, other(t.shard), {
      ...quick,
      afterCopy: async () => {
        const fhirWrite = await t.fetch(`/fhir/r4/${t.orgId}/Patient`, { method: "POST", json: { resourceType: "Patient" } });
        seen.fhir = { status: fhirWrite.status, retry: fhirWrite.headers.get("retry-after"), body: await fhirWrite.json() };
        const apiWrite = await t.fetch("/api/pipelines", { method: "POST", json: { name: "x", description: "", definition: { nodes: [], connections: [] } } });
        seen.api = { status: apiWrite.status, retry: apiWrite.headers.get("retry-after"), body: await apiWrite.json() };
        seen.read = (await t.fetch(`/fhir/r4/${t.orgId}/Patient/${p.id}`)).status;
        seen.search = (await t.fetch(`/fhir/r4/${t.orgId}/Patient/_search`, { method: "POST", body: "", headers: { "content-type": "application/x-www-form-urlencoded" } })).status;
        seen.placement = await placementOf(env.DB, t.orgId);
      },
    });
    expect(seen.fhir).toMatchObject({
      status: 503,
      retry: "30",
      body: { resourceType: "OperationOutcome", issue: [{ code: "transient", details: { coding: [{ code: "ORG_MOVING" }] } }] },
    });
    expect(seen.api).toMatchObject({ status: 503, retry: "30", body: { error: { code: "ORG_MOVING", status: 503 } } });
    expect(seen.read).toBe(200);
    expect(seen.search).toBe(200);
    expect(seen.placement).toMatchObject({ shard: t.shard, movingTo: other(t.shard) });
    expect((await t.fetch(`/fhir/r4/${t.orgId}/Patient`, { method: "POST", json: { resourceType: "Patient" } })).status).toBe(201);
  });

  it("leaves the org where it was when verification fails (a write reached the old copy during the move)", { timeout: 30_000 }, async () => {
    const t = await createTenant();
    const s = await seed(t);
    const before = await snapshot(t, s);
    const source = shardDatabase(env, t.shard);
    const target = shardDatabase(env, other(t.shard));
    const move = moveOrganization(env, t.orgId, other(t.shard), {
      ...quick,
      // A background writer that ignored the pause: the copy no longer matches the source.
      afterCopy: async () => {
        await source.prepare("UPDATE pipelines SET description = 'changed meanwhile' WHERE org_id = ?1").bind(t.orgId).run();
      },
    });
    await expect(move).rejects.toMatchObject({ status: 409, code: "MOVE_VERIFICATION_FAILED", message: expect.stringContaining("pipelines") });
    expect(await directoryRow(t.orgId)).toEqual({ shard: t.shard, moving_to: null });
    expect(await rowsIn(target, t.orgId)).toEqual({});
    const after = await snapshot(t, s);
    expect(after.patient).toEqual(before.patient);
    expect(after.conversation).toEqual(before.conversation);
    expect((await t.fetch(`/fhir/r4/${t.orgId}/Patient`, { method: "POST", json: { resourceType: "Patient" } })).status).toBe(201);
  });

  it("refuses a move to an undeclared shard, onto its own shard, or while another move runs", async () => {
    const t = await createTenant();
    await expect(moveOrganization(env, t.orgId, "SHARD_9", quick)).rejects.toMatchObject({ status: 404, code: "SHARD_NOT_FOUND" });
    await expect(moveOrganization(env, t.orgId, t.shard, quick)).rejects.toMatchObject({ status: 409, code: "ALREADY_ON_SHARD" });
    await env.DB.prepare("UPDATE organizations SET moving_to = ?2 WHERE id = ?1").bind(t.orgId, other(t.shard)).run();
    await expect(moveOrganization(env, t.orgId, other(t.shard), quick)).rejects.toMatchObject({ status: 409, code: "ORG_MOVING" });
  });

  it("gives the control database its tables and every shard the data tables, and neither the other's", async () => {
    const tables = async (db: D1Database) =>
      (await db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all<{ name: string }>()).results.map((r) => r.name);
    const [control, ...shards] = allDatabases(env);
    expect(await tables(control!)).toEqual(expect.arrayContaining(["organizations", "api_keys"]));
    expect(await tables(control!)).not.toContain("fhir_resources");
    for (const shard of shards) {
      expect(await tables(shard)).toEqual(expect.arrayContaining(["fhir_resources", "pipelines", "agents", "inbound_messages"]));
      expect(await tables(shard)).not.toContain("organizations");
      expect(await tables(shard)).not.toContain("api_keys");
    }
  });
});

describe("operator route", () => {
  const move = (auth: string, body: unknown, orgId = "x") =>
    env.OPERATOR_TOKEN === undefined ? Promise.reject(new Error("OPERATOR_TOKEN is unset in the test env")) : import("../support/tenants").then(({ call }) => call(`/admin/organizations/${orgId}/move`, { method: "POST", json: body, headers: { authorization: auth } }));

  it("takes the operator token only, not an org's API key, and is documented as operator-only", async () => {
    const t: Tenant = await createTenant();
    expect((await move(`Bearer ${t.key}`, { shard: other(t.shard) }, t.orgId)).status).toBe(401);
    const unknown = await move(`Bearer ${env.OPERATOR_TOKEN}`, { shard: "SHARD_9" }, t.orgId);
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as { error: { code: string } }).error.code).toBe("SHARD_NOT_FOUND");
    expect((await move(`Bearer ${env.OPERATOR_TOKEN}`, { nope: 1 }, t.orgId)).status).toBe(400);
    const { call } = await import("../support/tenants");
    const doc = (await (await call("/api/openapi.json")).json()) as { paths: Record<string, Record<string, { security: unknown; tags: string[] }>> };
    expect(doc.paths["/admin/organizations/{orgId}/move"]?.post).toMatchObject({ security: [{ operatorToken: [] }], tags: ["Operator"] });
  });
});
