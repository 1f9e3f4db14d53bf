// Customer webhooks' use cases on the real D1 shard, with the destination queue behind a
// recording port: endpoint validation, secrets (shown once, encrypted, rotated with overlap),
// the publish fan-out (recorded events, one message per event and endpoint, stable ids), replay,
// the disable rule through the attempt observer, and tenancy (org B never gets org A's events
// and cannot read A's endpoints).
import { beforeAll, describe, expect, it } from "vitest";
import type { AttemptObservation, Destination, OutboundMessage } from "../../src/features/destinations";
import type { DeliveryPort, EndpointDestination } from "../../src/features/event-webhooks/delivery";
import { messageIdOf } from "../../src/features/event-webhooks/delivery";
import { observeAttempt } from "../../src/features/event-webhooks/observer";
import { publishEvents } from "../../src/features/event-webhooks/publish";
import { getDelivery, replay } from "../../src/features/event-webhooks/use-cases/deliveries";
import { createEndpoint, deleteEndpoint, getEndpoint, rotateSecret, updateEndpoint } from "../../src/features/event-webhooks/use-cases/endpoints";
import { ApiError } from "../../src/platform/errors";
import type { PublishedEvent } from "../../src/platform/events";
import type { OrgContext } from "../../src/platform/org-context";
import { createTenant, type Tenant } from "../support/tenants";

/** The queue as the port sees it: destinations by endpoint, messages by destination. */
class RecordingPort implements DeliveryPort {
  destinations = new Map<string, EndpointDestination & { id: string; org: string }>();
  enqueued = new Map<string, OutboundMessage[]>();
  redelivered = new Map<string, OutboundMessage[]>();
  async save(ctx: OrgContext, endpointId: string, spec: EndpointDestination) {
    const id = this.destinations.get(endpointId)?.id ?? `dest-${endpointId}`;
    this.destinations.set(endpointId, { ...spec, id, org: ctx.orgId });
    return id;
  }
  async remove(_ctx: OrgContext, endpointId: string) {
    this.destinations.delete(endpointId);
  }
  async enqueue(_ctx: OrgContext, destinationId: string, messages: OutboundMessage[]) {
    const list = this.enqueued.get(destinationId) ?? [];
    for (const m of messages) if (!list.some((x) => x.id === m.id)) list.push(m);
    this.enqueued.set(destinationId, list);
  }
  async redeliver(_ctx: OrgContext, destinationId: string, messages: OutboundMessage[]) {
    this.redelivered.set(destinationId, [...(this.redelivered.get(destinationId) ?? []), ...messages]);
  }
  async listMessages() {
    return { messages: [], next_cursor: null };
  }
  async messageAttempts(): Promise<never> {
    throw new ApiError(404, "MESSAGE_NOT_FOUND", "no such message");
  }
}

const event = (type: string, id: string, data: Record<string, unknown> = {}): PublishedEvent => ({ type, id, occurred_at: new Date().toISOString(), data });
const errorOf = async (p: Promise<unknown>) => {
  try {
    await p;
  } catch (e) {
    if (e instanceof ApiError) return { status: e.status, code: e.code, details: e.details };
    throw e;
  }
  throw new Error("expected an ApiError");
};

describe("webhook endpoints and publishing", () => {
  let a: Tenant;
  let b: Tenant;
  beforeAll(async () => {
    [a, b] = [await createTenant(), await createTenant()];
  });

  it("refuses bad URLs and event types, each problem at its path", async () => {
    const port = new RecordingPort();
    const e = await errorOf(createEndpoint(a.ctx, port, { url: "http://example.com/hook", event_types: ["alert.exploded", "fhir.NoSuchType.*"] }));
    expect(e.status).toBe(400);
    expect(e.code).toBe("VALIDATION_FAILED");
    expect(e.details?.map((d) => d.path)).toEqual(["url", "event_types[0]", "event_types[1]"]);
    for (const url of ["ftp://example.com/x", "https://user:pw@example.com/x", "https://10.0.0.1/x", "http://127.0.0.2:9/x", "not a url"]) {
      expect((await errorOf(createEndpoint(a.ctx, port, { url, event_types: ["*"] }))).details?.[0]?.path).toBe("url");
    }
    // http to what OUTBOUND_ALLOW lists (127.0.0.1 in the test configuration) and https anywhere public.
    expect((await createEndpoint(a.ctx, port, { url: "http://127.0.0.1:9/hook", event_types: ["fhir.Observation.*"] })).row.url).toBe("http://127.0.0.1:9/hook");
    expect((await createEndpoint(a.ctx, port, { url: "https://example.com/hook", event_types: ["fhir.*.deleted"] })).row.enabled).toBe(true);
  });

  it("answers the secret once, keeps it encrypted and gives the destination every valid secret; rotation keeps the old one for the overlap", async () => {
    const port = new RecordingPort();
    const { row, secret } = await createEndpoint(a.ctx, port, { url: "https://example.com/a", event_types: ["alert.*"] });
    expect(secret).toMatch(/^whsec_/);
    const stored = (await a.ctx.d1.prepare("SELECT secrets_enc FROM webhook_endpoints WHERE org_id = ? AND id = ?").bind(a.orgId, row.id).first<{ secrets_enc: string }>())?.secrets_enc;
    expect(stored).toBeTruthy();
    expect(stored).not.toContain(secret.slice(6, 20));
    expect(port.destinations.get(row.id)?.signing_secrets).toEqual([secret]);
    const rotation = await rotateSecret(a.ctx, port, row.id);
    expect(rotation.secret).not.toBe(secret);
    expect(port.destinations.get(row.id)?.signing_secrets).toEqual([rotation.secret, secret]);
    const overlapEnd = Date.parse(rotation.secrets[1]?.expires_at ?? "");
    expect(Math.abs(overlapEnd - Date.now() - 24 * 3_600_000)).toBeLessThan(60_000);
    const immediate = await rotateSecret(a.ctx, port, row.id, 0);
    expect(port.destinations.get(row.id)?.signing_secrets).toEqual([immediate.secret]);
    expect((await getEndpoint(a.ctx, row.id)).secrets.map((s) => s.secret)).toEqual([immediate.secret]);
  });

  it("fans events out to the subscribed enabled endpoints only, records them once, with one stable id per (event, endpoint)", async () => {
    const port = new RecordingPort();
    const alerts = await createEndpoint(a.ctx, port, { url: "https://example.com/alerts", event_types: ["alert.*"] });
    const all = await createEndpoint(a.ctx, port, { url: "https://example.com/all", event_types: ["*"] });
    const off = await createEndpoint(a.ctx, port, { url: "https://example.com/off", event_types: ["*"], enabled: false });
    const raised = event("alert.raised", `alert.raised.${crypto.randomUUID()}`, { alert_id: "x" });
    const failed = event("execution.failed", `execution.failed.${crypto.randomUUID()}`);
    await publishEvents(a.ctx, [raised, failed], port);
    await publishEvents(a.ctx, [raised], port); // raised twice: the same message
    const toAlerts = port.enqueued.get(alerts.row.destinationId as string) ?? [];
    const toAll = port.enqueued.get(all.row.destinationId as string) ?? [];
    expect(toAlerts.map((m) => m.label)).toEqual(["alert.raised"]);
    expect(toAll.map((m) => m.label)).toEqual(["alert.raised", "execution.failed"]);
    expect(port.enqueued.get(off.row.destinationId as string)).toBeUndefined();
    expect(toAlerts[0]?.id).toBe(await messageIdOf(alerts.row.id, raised.id));
    expect(JSON.parse(toAlerts[0]?.body ?? "{}")).toMatchObject({ id: raised.id, type: "alert.raised", data: { alert_id: "x" } });
    const recorded = await a.ctx.d1.prepare("SELECT id FROM webhook_events WHERE org_id = ? AND id IN (?, ?)").bind(a.orgId, raised.id, failed.id).all();
    expect(recorded.results).toHaveLength(2);
    // Replay puts the same ids back: one event, then a time range.
    await replay(a.ctx, port, alerts.row.id, { event_id: raised.id });
    expect(port.redelivered.get(alerts.row.destinationId as string)?.map((m) => m.id)).toEqual([toAlerts[0]?.id]);
    const range = await replay(a.ctx, port, all.row.id, { from: new Date(Date.now() - 60_000).toISOString(), to: new Date(Date.now() + 1000).toISOString() });
    expect(range.replayed.map((r) => r.event_id).sort()).toEqual([raised.id, failed.id].sort());
    expect(port.redelivered.get(all.row.destinationId as string)?.map((m) => m.id).sort()).toEqual(toAll.map((m) => m.id).sort());
    expect((await errorOf(replay(a.ctx, port, alerts.row.id, { event_id: failed.id }))).code).toBe("WEBHOOK_EVENT_NOT_SUBSCRIBED");
    expect((await errorOf(replay(a.ctx, port, off.row.id, { event_id: raised.id }))).code).toBe("WEBHOOK_ENDPOINT_DISABLED");
  });

  it("sees an endpoint change at once in the isolate that made it", async () => {
    const port = new RecordingPort();
    const ep = await createEndpoint(a.ctx, port, { url: "https://example.com/late", event_types: ["sync.completed"] });
    await publishEvents(a.ctx, [event("sync.completed", `s-${crypto.randomUUID()}`)], port);
    await updateEndpoint(a.ctx, port, ep.row.id, { event_types: ["sync.failed"] });
    await publishEvents(a.ctx, [event("sync.completed", `s-${crypto.randomUUID()}`)], port);
    expect(port.enqueued.get(ep.row.destinationId as string)).toHaveLength(1);
    await deleteEndpoint(a.ctx, port, ep.row.id);
    expect(port.destinations.has(ep.row.id)).toBe(false);
    expect((await errorOf(getEndpoint(a.ctx, ep.row.id))).code).toBe("WEBHOOK_ENDPOINT_NOT_FOUND");
  });

  it("keeps organizations apart: B's endpoint gets none of A's events, B cannot read A's endpoint", async () => {
    const port = new RecordingPort();
    const ofA = await createEndpoint(a.ctx, port, { url: "https://example.com/a", event_types: ["*"] });
    const ofB = await createEndpoint(b.ctx, port, { url: "https://example.com/b", event_types: ["*"] });
    await publishEvents(a.ctx, [event("alert.raised", `alert.raised.${crypto.randomUUID()}`)], port);
    expect(port.enqueued.get(ofA.row.destinationId as string)).toHaveLength(1);
    expect(port.enqueued.get(ofB.row.destinationId as string)).toBeUndefined();
    expect((await errorOf(getEndpoint(b.ctx, ofA.row.id))).status).toBe(404);
    expect((await errorOf(replay(b.ctx, port, ofA.row.id, { from: new Date(0).toISOString(), to: new Date().toISOString() }))).status).toBe(404);
    expect((await errorOf(getDelivery(b.ctx, port, ofA.row.id, "msg_x"))).status).toBe(404);
  });

  describe("the disable rule", () => {
    const observation = (endpointId: string, secrets: string[], status: number, ok: boolean, startedAt = new Date().toISOString()): AttemptObservation => {
      const destination = { id: `dest-${endpointId}`, owner: { kind: "webhook", id: endpointId }, signing_secrets: secrets } as unknown as Destination;
      return {
        destination,
        message: {} as AttemptObservation["message"],
        attempt: { message_id: "m", number: 1, started_at: startedAt, duration_ms: 5, result: ok ? { ok, status } : { ok, status, failure: { class: status === 410 ? "gone" : "server_error", message: `HTTP ${status}` } } },
        next: ok ? "delivered" : "retry",
        failure_streak: ok ? 0 : 1,
      };
    };

    it("disables at once on 410, pauses the destination and tells the org's other endpoints", async () => {
      const port = new RecordingPort();
      const gone = await createEndpoint(a.ctx, port, { url: "https://example.com/gone", event_types: ["*"] });
      const watcher = await createEndpoint(a.ctx, port, { url: "https://example.com/watch", event_types: ["webhook.endpoint.disabled"] });
      await observeAttempt(a.ctx, observation(gone.row.id, [gone.secret], 410, false), port);
      const after = (await getEndpoint(a.ctx, gone.row.id)).row;
      expect(after).toMatchObject({ enabled: false, disabledReason: "gone" });
      expect(after.disabledAt).toBeTruthy();
      expect(port.destinations.get(gone.row.id)?.state).toBe("paused");
      const told = port.enqueued.get(watcher.row.destinationId as string) ?? [];
      expect(told.map((m) => JSON.parse(m.body).data)).toEqual([expect.objectContaining({ endpoint_id: gone.row.id, disabled_reason: "gone" })]);
      expect(port.enqueued.get(gone.row.destinationId as string)).toBeUndefined();
      // Re-enabling clears the state and resumes the queue.
      const again = await updateEndpoint(a.ctx, port, gone.row.id, { enabled: true });
      expect(again).toMatchObject({ enabled: true, disabledReason: null, disabledAt: null, failingSince: null });
      expect(port.destinations.get(gone.row.id)?.state).toBe("active");
    });

    it("disables after five days of failures without a success; a success resets the count", async () => {
      const port = new RecordingPort();
      const ep = await createEndpoint(a.ctx, port, { url: "https://example.com/flaky", event_types: ["*"] });
      await observeAttempt(a.ctx, observation(ep.row.id, [ep.secret], 503, false), port);
      const since = (await getEndpoint(a.ctx, ep.row.id)).row.failingSince;
      expect(since).toBeTruthy();
      await observeAttempt(a.ctx, observation(ep.row.id, [ep.secret], 200, true), port);
      expect((await getEndpoint(a.ctx, ep.row.id)).row.failingSince).toBeNull();
      await observeAttempt(a.ctx, observation(ep.row.id, [ep.secret], 500, false), port);
      await a.ctx.d1.prepare("UPDATE webhook_endpoints SET failing_since = ? WHERE org_id = ? AND id = ?").bind(new Date(Date.now() - 5 * 86_400_000 - 1000).toISOString(), a.orgId, ep.row.id).run();
      await observeAttempt(a.ctx, observation(ep.row.id, [ep.secret], 500, false), port);
      expect((await getEndpoint(a.ctx, ep.row.id)).row).toMatchObject({ enabled: false, disabledReason: "failing" });
    });

    it("ignores another organization's endpoint id", async () => {
      const port = new RecordingPort();
      const ofA = await createEndpoint(a.ctx, port, { url: "https://example.com/x", event_types: ["*"] });
      await observeAttempt(b.ctx, observation(ofA.row.id, [ofA.secret], 410, false), port);
      expect((await getEndpoint(a.ctx, ofA.row.id)).row.enabled).toBe(true);
    });
  });
});

