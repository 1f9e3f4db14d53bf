// Read audits through the audit queue: a read writes nothing to D1 on its request path, answers
// only once the queue holds its AuditEvent, and every read ends up as exactly one AuditEvent,
// however often the queue delivers it; never in another organization.
import { createExecutionContext, createMessageBatch, getQueueResult } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { buildApp } from "../../src/main/app";
import { AUDIT_WRITE_CHUNK, type AuditMessage, consumeAudits } from "../../src/features/fhir/audit-queue";
import type { Bundle } from "../../src/features/fhir/port";
import type { Env } from "../../src/platform/env";
import type { OrgData } from "../../src/platform/org-data";
import worker from "../../src/main/entry";
import { countingD1 } from "../support/d1-counter";
import { eventually } from "../support/eventually";
import { type Tenant, createTenant } from "../support/tenants";
import { post, search } from "./support";

const app = buildApp();

/** The subtypes (interactions) of the AuditEvents naming `what`, once `expected` of them are there (the queue delivers within about a second). */
async function auditsOf(t: Tenant, what: string, expected: number): Promise<string[]> {
  const bundle = await eventually(
    () => search(t, `AuditEvent?entity=${what}&_count=200`),
    (b: Bundle) => (b.entry?.length ?? 0) >= expected,
  );
  return (bundle.entry ?? []).map((e) => (e.resource as unknown as { subtype: { code: string }[] }).subtype[0]!.code).sort();
}

/** Lets the queue deliver anything still in flight (its batch timeout is 1 s). */
const settle = () => new Promise((r) => setTimeout(r, 1500));

/** A queue message as the producer sends it (what the consumer receives). */
const messageOf = (body: AuditMessage, id = crypto.randomUUID()) => ({ id, timestamp: new Date(), attempts: 1, body });

describe("read audits through the audit queue", () => {
  it("turns every read into exactly one AuditEvent, with no D1 write on the read's path", async () => {
    const t = await createTenant();
    const p = await post(t, { resourceType: "Patient", name: [{ family: "Queued" }] });
    // A first read learns the org's consent read policy (one SELECT, then cached by the isolate),
    // so the counted reads below are the steady state.
    expect((await t.fetch(`/fhir/r4/${t.orgId}/Patient/${p.id}`)).status).toBe(200);
    const shard = countingD1(env, t.shard);
    const reads = 5;
    for (let i = 0; i < reads; i++) {
      const res = await app.fetch(
        new Request(`http://localhost/fhir/r4/${t.orgId}/Patient/${p.id}`, { headers: { authorization: `Bearer ${t.key}`, "x-organization-id": t.orgId } }),
        shard.env,
        createExecutionContext(),
      );
      expect(res.status).toBe(200);
    }
    // One read (SELECT) per request on the org's shard, and no write: the audits went to the queue.
    expect(shard.count).toBe(reads);
    expect(await auditsOf(t, `Patient/${p.id}`, reads + 2)).toEqual(["create", ...Array(reads + 1).fill("read")]);
    await settle();
    expect(await auditsOf(t, `Patient/${p.id}`, reads + 2)).toHaveLength(reads + 2);
  });

  it("audits failed reads too (404, 410), once each", async () => {
    const t = await createTenant();
    const p = await post(t, { resourceType: "Patient" });
    expect((await t.fetch(`/fhir/r4/${t.orgId}/Patient/${p.id}`, { method: "DELETE" })).status).toBe(204);
    expect((await t.fetch(`/fhir/r4/${t.orgId}/Patient/${p.id}`)).status).toBe(410);
    expect((await t.fetch(`/fhir/r4/${t.orgId}/Patient/nobody`)).status).toBe(404);
    expect(await auditsOf(t, `Patient/${p.id}`, 3)).toEqual(["create", "delete", "read"]);
    expect(await auditsOf(t, "Patient/nobody", 1)).toEqual(["read"]);
  });

  it("answers only once the queue holds the audit: a Worker stopped right after the response loses none", async () => {
    const t = await createTenant();
    const p = await post(t, { resourceType: "Patient" });
    let held = 0;
    const queue = {
      send: async (body: unknown, options?: QueueSendOptions) => {
        await env.AUDIT_QUEUE.send(body, options);
        held++;
      },
      sendBatch: async (messages: Iterable<MessageSendRequest>, options?: QueueSendBatchOptions) => {
        await env.AUDIT_QUEUE.sendBatch(messages, options);
        held++;
      },
    } as unknown as Queue;
    // The execution context is never waited on: whatever the Worker left for after the response
    // (waitUntil) is abandoned, as when it stops there.
    const res = await app.fetch(
      new Request(`http://localhost/fhir/r4/${t.orgId}/Patient/${p.id}`, { headers: { authorization: `Bearer ${t.key}`, "x-organization-id": t.orgId } }),
      { ...env, AUDIT_QUEUE: queue } as Env,
      createExecutionContext(),
    );
    expect(res.status).toBe(200);
    expect(held).toBe(1);
    expect(await auditsOf(t, `Patient/${p.id}`, 2)).toEqual(["create", "read"]);
  });

  it("sends a search's own AuditEvent and the guide's (PDQm ITI-78) in one queue call, before answering, for a refused search too", async () => {
    const t = await createTenant();
    await post(t, { resourceType: "Patient", name: [{ family: "Together" }] });
    const calls: number[] = [];
    const queue = {
      send: async (body: unknown, options?: QueueSendOptions) => {
        await env.AUDIT_QUEUE.send(body, options);
        calls.push(1);
      },
      sendBatch: async (messages: Iterable<MessageSendRequest>, options?: QueueSendBatchOptions) => {
        const list = [...messages];
        await env.AUDIT_QUEUE.sendBatch(list, options);
        calls.push(list.length);
      },
    } as unknown as Queue;
    const searchWith = (query: string) =>
      app.fetch(
        new Request(`http://localhost/fhir/r4/${t.orgId}/Patient?${query}`, { headers: { authorization: `Bearer ${t.key}`, "x-organization-id": t.orgId } }),
        { ...env, AUDIT_QUEUE: queue } as Env,
        createExecutionContext(),
      );
    expect((await searchWith("family=Together")).status).toBe(200);
    expect(calls).toEqual([2]);
    expect((await searchWith("unknown-parameter=1")).status).toBe(200);
    expect((await searchWith("birthdate=not-a-date")).status).toBe(400);
    expect(calls).toEqual([2, 2, 2]);
    // The store's own search audits of the three (the AuditEvent searches below are audited too: told apart by their query).
    const patientSearches = (b: Bundle) =>
      (b.entry ?? []).filter((e) => (e.resource as unknown as { entity?: { description?: string }[] }).entity?.some((x) => /family=Together|unknown-parameter|birthdate=not-a-date/.test(x.description ?? "")));
    const rest = await eventually(
      () => search(t, "AuditEvent?subtype=search-type&_count=50"),
      (b: Bundle) => patientSearches(b).length >= 3,
    );
    expect(patientSearches(rest)).toHaveLength(3);
    const iti78 = await eventually(
      () => search(t, "AuditEvent?subtype=ITI-78&_count=50"),
      (b: Bundle) => (b.entry?.length ?? 0) >= 3,
    );
    expect(iti78.entry).toHaveLength(3);
  });

  it("stores the audits of concurrent reads of two organizations each once, in its own organization", async () => {
    const a = await createTenant();
    const b = await createTenant();
    const pa = await post(a, { resourceType: "Patient" });
    const pb = await post(b, { resourceType: "Patient" });
    // Separate requests of the same isolate, interleaved across two organizations: their audits
    // reach the queue's deliveries mixed, and the consumer stores each in its own organization, once.
    const reads = 12;
    const statuses = await Promise.all(
      Array.from({ length: reads * 2 }, (_, i) => (i % 2 ? b.fetch(`/fhir/r4/${b.orgId}/Patient/${pb.id}`) : a.fetch(`/fhir/r4/${a.orgId}/Patient/${pa.id}`)).then((r) => r.status)),
    );
    expect(statuses).toEqual(Array(reads * 2).fill(200));
    expect(await auditsOf(a, `Patient/${pa.id}`, reads + 1)).toEqual(["create", ...Array(reads).fill("read")]);
    expect(await auditsOf(b, `Patient/${pb.id}`, reads + 1)).toEqual(["create", ...Array(reads).fill("read")]);
    await settle();
    expect(await auditsOf(a, `Patient/${pa.id}`, reads + 1)).toHaveLength(reads + 1);
    expect(await auditsOf(b, `Patient/${pb.id}`, reads + 1)).toHaveLength(reads + 1);
  });

  it("stores a redelivered batch once, and each event once however many times it comes", async () => {
    const t = await createTenant();
    const event = { resourceType: "AuditEvent", id: crypto.randomUUID(), recorded: new Date().toISOString(), meta: { versionId: "1", lastUpdated: new Date().toISOString() }, source: { site: t.orgId, observer: { display: "test" } }, entity: [{ what: { reference: "Patient/redelivered" } }], subtype: [{ code: "read" }] };
    const body: AuditMessage = { orgId: t.orgId, event };
    const indexRows = async () =>
      (await t.ctx.d1.prepare("SELECT COUNT(*) AS n FROM fhir_idx_reference WHERE org_id = ?1 AND resource_id = ?2").bind(t.orgId, event.id).first<{ n: number }>())!.n;
    const rowsAfter: number[] = [];
    for (let delivery = 0; delivery < 3; delivery++) {
      // The same message twice in one batch too (at-least-once delivery may do that).
      const batch = createMessageBatch("cdis-audit", [messageOf(body), messageOf(body)]);
      const ctx = createExecutionContext();
      await worker.queue(batch, env);
      const result = await getQueueResult(batch, ctx);
      expect(result.explicitAcks).toHaveLength(2);
      expect(result.retryMessages).toEqual([]);
      rowsAfter.push(await indexRows());
    }
    expect(await auditsOf(t, "Patient/redelivered", 1)).toEqual(["read"]);
    // Its index rows went in once, with the first delivery.
    expect(rowsAfter[0]).toBeGreaterThan(0);
    expect(new Set(rowsAfter).size).toBe(1);
  });

  it("stores a delivery larger than one write chunk in chunks, each event once even after a chunk failed", async () => {
    const t = await createTenant();
    const count = AUDIT_WRITE_CHUNK * 2 + 3;
    const now = new Date().toISOString();
    const events = Array.from({ length: count }, (_, i) => ({ resourceType: "AuditEvent", id: crypto.randomUUID(), recorded: now, meta: { versionId: "1", lastUpdated: now }, source: { site: t.orgId, observer: { display: "test" } }, entity: [{ what: { reference: `Patient/chunked-${i}` } }], subtype: [{ code: "read" }] }));
    const stored = async () =>
      (await t.ctx.d1.prepare("SELECT COUNT(*) AS n FROM fhir_resources WHERE org_id = ?1 AND resource_type = 'AuditEvent' AND id IN (SELECT value FROM json_each(?2))").bind(t.orgId, JSON.stringify(events.map((e) => e.id))).first<{ n: number }>())!.n;
    const indexRows = async () =>
      (await t.ctx.d1.prepare("SELECT COUNT(*) AS n FROM fhir_idx_reference WHERE org_id = ?1 AND resource_id IN (SELECT value FROM json_each(?2))").bind(t.orgId, JSON.stringify(events.map((e) => e.id))).first<{ n: number }>())!.n;
    const deliver = async (data: (orgId: string) => Promise<OrgData>) => {
      const batch = createMessageBatch("cdis-audit", events.map((event) => messageOf({ orgId: t.orgId, event })));
      const ctx = createExecutionContext();
      await consumeAudits(batch, data);
      return getQueueResult(batch, ctx);
    };
    // The shard fails on the second chunk's batch: the delivery is retried, the first chunk stays stored.
    let batches = 0;
    const withBatch = (batch: (s: D1PreparedStatement[]) => Promise<D1Result[]>): OrgData => ({ ...t.ctx, d1: { prepare: (q: string) => t.ctx.d1.prepare(q), batch } as unknown as D1Database });
    const failing = withBatch((s) => (++batches === 2 ? Promise.reject(new Error("shard unreachable")) : t.ctx.d1.batch(s)));
    const first = await deliver(async () => failing);
    expect(first.explicitAcks).toEqual([]);
    expect(first.retryMessages).toHaveLength(count);
    expect(await stored()).toBe(AUDIT_WRITE_CHUNK);
    // The redelivery stores the rest, in three batches, and adds nothing twice.
    const rowsOfFirstChunk = await indexRows();
    batches = 0;
    const counted = withBatch((s) => {
      batches++;
      return t.ctx.d1.batch(s);
    });
    const second = await deliver(async () => counted);
    expect(second.explicitAcks).toHaveLength(count);
    expect(batches).toBe(3);
    expect(await stored()).toBe(count);
    expect(await indexRows()).toBe((rowsOfFirstChunk / AUDIT_WRITE_CHUNK) * count);
  });

  it("retries a batch it could not store instead of acknowledging it", async () => {
    const t = await createTenant();
    const event = { resourceType: "AuditEvent", id: crypto.randomUUID(), source: { site: t.orgId } };
    const batch = createMessageBatch("cdis-audit", [messageOf({ orgId: t.orgId, event })]);
    const ctx = createExecutionContext();
    await consumeAudits(batch, async () => {
      throw new Error("shard unreachable");
    });
    const result = await getQueueResult(batch, ctx);
    expect(result.explicitAcks).toEqual([]);
    expect(result.retryMessages.map((m) => m.msgId)).toEqual([batch.messages[0]!.id]);
  });

  it("never stores an audit in, or shows it to, another organization", async () => {
    const a = await createTenant();
    const b = await createTenant();
    const p = await post(a, { resourceType: "Patient" });
    expect((await a.fetch(`/fhir/r4/${a.orgId}/Patient/${p.id}`)).status).toBe(200);
    // B reading A's id finds nothing, and that failed read is B's audit.
    expect((await b.fetch(`/fhir/r4/${b.orgId}/Patient/${p.id}`)).status).toBe(404);
    expect(await auditsOf(a, `Patient/${p.id}`, 2)).toEqual(["create", "read"]);
    expect(await auditsOf(b, `Patient/${p.id}`, 1)).toEqual(["read"]);
    // A message claiming one org for an event recorded for another is stored nowhere.
    const forged = { resourceType: "AuditEvent", id: crypto.randomUUID(), source: { site: a.orgId }, entity: [{ what: { reference: "Patient/forged" } }] };
    const batch = createMessageBatch("cdis-audit", [messageOf({ orgId: b.orgId, event: forged })]);
    const ctx = createExecutionContext();
    await worker.queue(batch, env);
    expect((await getQueueResult(batch, ctx)).explicitAcks).toHaveLength(1);
    await settle();
    expect(await auditsOf(a, "Patient/forged", 0)).toEqual([]);
    expect(await auditsOf(b, "Patient/forged", 0)).toEqual([]);
  });
});
