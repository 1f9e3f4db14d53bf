// Management AuditEvents travel through the audit queue like the FHIR reads' ones (docs/audit.md):
// a management request answers only once the queue holds its AuditEvent, so a Worker stopped
// between the response and the delivery loses none; a redelivered batch adds nothing; GET
// /api/audit shows each action once, as soon as its delivery is stored; a queue that refuses
// the send leaves the audit in the pending log, still listed.
import { createExecutionContext, createMessageBatch, getQueueResult } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { buildApp } from "../../src/main/app";
import { type AuditMessage, auditMessageOf } from "../../src/features/fhir/audit-queue";
import type { Env } from "../../src/platform/env";
import worker from "../../src/main/entry";
import { eventually } from "../support/eventually";
import { createTenant, type Tenant } from "../support/tenants";

const app = buildApp();

/** A queue that only keeps what it is given: nothing is delivered unless the test delivers it. */
function holdingQueue(refuse = false) {
  const held: AuditMessage[] = [];
  const keep = (body: unknown) => {
    if (refuse) throw new Error("queue unavailable");
    const message = auditMessageOf(body);
    if (!message) throw new Error(`not an audit message: ${JSON.stringify(body)}`);
    held.push(message);
  };
  const queue = {
    send: async (body: unknown) => keep(body),
    sendBatch: async (messages: Iterable<MessageSendRequest>) => {
      for (const m of messages) keep(m.body);
    },
  } as unknown as Queue;
  return { queue, held };
}

/** PUT /api/consent/policy (an audited management action) on an execution context nobody waits for, as when the Worker stops after answering. */
async function changePolicy(t: Tenant, queue: Queue): Promise<Response> {
  return app.fetch(
    new Request("http://localhost/api/consent/policy", {
      method: "PUT",
      headers: { authorization: `Bearer ${t.key}`, "x-organization-id": t.orgId, "content-type": "application/json" },
      body: JSON.stringify({ default_policy: "opt-out", enforce_outbound: false }),
    }),
    { ...env, AUDIT_QUEUE: queue } as Env,
    createExecutionContext(),
  );
}

async function listed(t: Tenant): Promise<{ id: string; outcome: string }[]> {
  const res = await t.fetch("/api/audit?action=consent_policy.update&limit=100");
  expect(res.status).toBe(200);
  return ((await res.json()) as { audit_events: { id: string; outcome: string }[] }).audit_events;
}

describe("management audits through the audit queue", () => {
  it("are handed to the queue before the response; redelivered batches add nothing; the audit log lists each once", async () => {
    const t = await createTenant();
    const { queue, held } = holdingQueue();
    const res = await changePolicy(t, queue);
    expect(res.status).toBe(200);
    // The response went out with its audit already held by the queue: stopping now loses nothing.
    expect(held).toHaveLength(1);
    expect(held[0]!.orgId).toBe(t.orgId);
    expect(held[0]!.event.resourceType).toBe("AuditEvent");
    // Not delivered yet: not listed (this is the delay docs/audit.md gives, about a second on a healthy queue).
    expect(await listed(t)).toEqual([]);

    // At-least-once delivery: the same message three times, twice inside one batch.
    for (let delivery = 0; delivery < 3; delivery++) {
      const batch = createMessageBatch("cdis-audit", [held[0]!, held[0]!].map((body) => ({ id: crypto.randomUUID(), timestamp: new Date(), attempts: delivery + 1, body })));
      const ctx = createExecutionContext();
      await worker.queue(batch, env);
      const result = await getQueueResult(batch, ctx);
      expect(result.explicitAcks).toHaveLength(2);
      expect(result.retryMessages).toEqual([]);
    }
    const events = await listed(t);
    expect(events.map((e) => e.id)).toEqual([held[0]!.event.id]);
    expect(events[0]!.outcome).toBe("0");
  });

  it("go to the pending log when the queue refuses, and are still listed", async () => {
    const t = await createTenant();
    const { queue, held } = holdingQueue(true);
    expect((await changePolicy(t, queue)).status).toBe(200);
    expect(held).toEqual([]);
    // The pending log is indexed before any AuditEvent read, so the listing shows it at once.
    expect(await listed(t)).toHaveLength(1);
  });

  it("through the real queue, each action ends up listed exactly once", async () => {
    const t = await createTenant();
    for (let i = 0; i < 3; i++) expect((await t.fetch("/api/consent/policy", { method: "PUT", json: { default_policy: "opt-in", enforce_outbound: false } })).status).toBe(200);
    expect(await eventually(() => listed(t), (events) => events.length >= 3)).toHaveLength(3);
    await new Promise((r) => setTimeout(r, 1500));
    expect(new Set((await listed(t)).map((e) => e.id)).size).toBe(3);
  });
});
