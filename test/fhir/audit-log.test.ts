// The AuditEvent log: every write appends its AuditEvent in its own batch; the events are indexed
// in bulk before any AuditEvent read, by racing flushes without duplicates, per tenant. Reads'
// audits go through the audit queue instead (audit-queue.test.ts).
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { runScheduledWork } from "../../src/main/scheduled";
import { AuditRows } from "../../src/features/fhir/storage/audit-rows";
import { createTenant, shardOf } from "../support/tenants";
import { post, search } from "./support";

const pending = async (orgId: string) =>
  (await (await shardOf(orgId)).prepare("SELECT COUNT(*) AS n FROM fhir_audit_pending WHERE org_id = ?1").bind(orgId).first<{ n: number }>())!.n;
const indexRows = async (orgId: string) =>
  (await (await shardOf(orgId)).prepare("SELECT COUNT(*) AS n FROM fhir_idx_token WHERE org_id = ?1 AND resource_type = 'AuditEvent'").bind(orgId).first<{ n: number }>())!.n;

describe("AuditEvent log", () => {
  it("records each interaction durably before indexing it, and shows every audit to an AuditEvent search", async () => {
    const t = await createTenant();
    const p = await post(t, { resourceType: "Patient", name: [{ family: "Logged" }] });
    await post(t, { resourceType: "Patient", name: [{ family: "Logged too" }] });
    // The creates' audits committed with the creates.
    expect(await pending(t.orgId)).toBe(2);
    const events = await search(t, `AuditEvent?entity=Patient/${p.id}&_count=50`);
    expect((events.entry ?? []).map((e) => (e.resource as unknown as { subtype: { code: string }[] }).subtype[0]!.code).sort()).toEqual(["create"]);
    // The search indexed the log first; its own audit went to the audit queue.
    expect(await pending(t.orgId)).toBe(0);
  });

  it("indexes each event once when flushes race", async () => {
    const t = await createTenant();
    for (let i = 0; i < 5; i++) await post(t, { resourceType: "Patient", name: [{ family: `Race${i}` }] });
    const store = new AuditRows(t.ctx.d1, t.orgId);
    const [a, b, c] = await Promise.all([store.flushAudits(), store.flushAudits(), store.flushAudits()]);
    expect(a + b + c).toBeGreaterThanOrEqual(5);
    const once = await indexRows(t.orgId);
    expect(await pending(t.orgId)).toBe(0);
    // One more flushed alone adds exactly its own rows: the race left no duplicates.
    const q = await createTenant();
    for (let i = 0; i < 5; i++) await post(q, { resourceType: "Patient", name: [{ family: `Calm${i}` }] });
    await new AuditRows(q.ctx.d1, q.orgId).flushAudits();
    expect(once).toBe(await indexRows(q.orgId));
  });

  it("never indexes or shows one organization's audits to another", async () => {
    const a = await createTenant();
    const b = await createTenant();
    const p = await post(a, { resourceType: "Patient", name: [{ family: "Private" }] });
    await new AuditRows(b.ctx.d1, b.orgId).flushAudits();
    expect(await pending(a.orgId)).toBeGreaterThanOrEqual(1);
    expect((await search(b, `AuditEvent?entity=Patient/${p.id}`)).entry ?? []).toEqual([]);
    expect((await search(a, `AuditEvent?entity=Patient/${p.id}`)).entry).toHaveLength(1);
  });

  it("the minute cron indexes the logs of quiet organizations", async () => {
    const a = await createTenant();
    const b = await createTenant();
    await post(a, { resourceType: "Patient" });
    await post(b, { resourceType: "Patient" });
    await runScheduledWork(env, new Date());
    expect(await pending(a.orgId)).toBe(0);
    expect(await pending(b.orgId)).toBe(0);
  });

  it("a store holding its flush (device ingest) indexes the log only once released, and then in the background as before", async () => {
    const t = await createTenant();
    const principal = { orgId: t.orgId, keyId: t.keyId, keyName: "test", role: "admin" as const, scopes: [] };
    const started: Promise<unknown>[] = [];
    const entry = { resource: { resourceType: "Patient" }, request: { method: "POST", url: "Patient" } };
    // More writes than the flush threshold (200 per isolate and org) in one transaction.
    const write = (store: ReturnType<typeof t.ctx.fhir>) => store.batch({ resourceType: "Bundle", type: "transaction", entry: Array(210).fill(entry) });
    const held = t.ctx.fhir(principal, { holdAuditFlush: true, waitUntil: (p) => started.push(p) });
    await write(held);
    expect(started).toHaveLength(0);
    expect(await pending(t.orgId)).toBeGreaterThanOrEqual(210);
    held.releaseAuditFlush();
    expect(started).toHaveLength(1);
    await Promise.all(started);
    expect(await pending(t.orgId)).toBe(0);
    // A second release without new writes starts nothing; a store that does not hold starts at once.
    held.releaseAuditFlush();
    expect(started).toHaveLength(1);
    await write(t.ctx.fhir(principal, { waitUntil: (p) => started.push(p) }));
    expect(started).toHaveLength(2);
    await Promise.all(started);
    expect(await pending(t.orgId)).toBe(0);
  });
});
