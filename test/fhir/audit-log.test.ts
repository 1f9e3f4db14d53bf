// The AuditEvent log: every interaction appends its AuditEvent durably at once; the events are
// indexed in bulk before any AuditEvent read, by racing flushes without duplicates, per tenant.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { flushAllAuditLogs } from "../../src/features/fhir/audit-log";
import { ResourceStore } from "../../src/features/fhir/storage/resource-store";
import { createTenant } from "../support/tenants";
import { post, search } from "./support";

const pending = async (orgId: string) =>
  (await env.DB.prepare("SELECT COUNT(*) AS n FROM fhir_audit_pending WHERE org_id = ?1").bind(orgId).first<{ n: number }>())!.n;
const indexRows = async (orgId: string) =>
  (await env.DB.prepare("SELECT COUNT(*) AS n FROM fhir_idx_token WHERE org_id = ?1 AND resource_type = 'AuditEvent'").bind(orgId).first<{ n: number }>())!.n;

describe("AuditEvent log", () => {
  it("records each interaction durably before indexing it, and shows every audit to an AuditEvent search", async () => {
    const t = await createTenant();
    const p = await post(t, { resourceType: "Patient", name: [{ family: "Logged" }] });
    await (await t.fetch(`/fhir/r4/${t.orgId}/Patient/${p.id}`)).arrayBuffer();
    // The create's audit committed with the create; the read's right after the response.
    expect(await pending(t.orgId)).toBeGreaterThanOrEqual(2);
    const events = await search(t, `AuditEvent?entity=Patient/${p.id}&_count=50`);
    expect((events.entry ?? []).map((e) => (e.resource as unknown as { subtype: { code: string }[] }).subtype[0]!.code).sort()).toEqual(["create", "read"]);
    // The search's own audit is the only one left in the log.
    expect(await pending(t.orgId)).toBe(1);
  });

  it("indexes each event once when flushes race", async () => {
    const t = await createTenant();
    for (let i = 0; i < 5; i++) await post(t, { resourceType: "Patient", name: [{ family: `Race${i}` }] });
    const store = new ResourceStore(env.DB, t.orgId);
    const [a, b, c] = await Promise.all([store.flushAudits(), store.flushAudits(), store.flushAudits()]);
    expect(a + b + c).toBeGreaterThanOrEqual(5);
    const once = await indexRows(t.orgId);
    expect(await pending(t.orgId)).toBe(0);
    // One more flushed alone adds exactly its own rows: the race left no duplicates.
    const q = await createTenant();
    for (let i = 0; i < 5; i++) await post(q, { resourceType: "Patient", name: [{ family: `Calm${i}` }] });
    await new ResourceStore(env.DB, q.orgId).flushAudits();
    expect(once).toBe(await indexRows(q.orgId));
  });

  it("never indexes or shows one organization's audits to another", async () => {
    const a = await createTenant();
    const b = await createTenant();
    const p = await post(a, { resourceType: "Patient", name: [{ family: "Private" }] });
    await new ResourceStore(env.DB, b.orgId).flushAudits();
    expect(await pending(a.orgId)).toBeGreaterThanOrEqual(1);
    expect((await search(b, `AuditEvent?entity=Patient/${p.id}`)).entry ?? []).toEqual([]);
    expect((await search(a, `AuditEvent?entity=Patient/${p.id}`)).entry).toHaveLength(1);
  });

  it("the minute cron indexes the logs of quiet organizations", async () => {
    const a = await createTenant();
    const b = await createTenant();
    await post(a, { resourceType: "Patient" });
    await post(b, { resourceType: "Patient" });
    await flushAllAuditLogs(env);
    expect(await pending(a.orgId)).toBe(0);
    expect(await pending(b.orgId)).toBe(0);
  });
});
