// Customer webhooks end to end: the endpoints API over HTTP, events published through the org
// context, delivered by each endpoint's destination queue (its Durable Object) to scripted
// loopback receivers (test/setup/outbound-peers.ts) that verify every request with the
// standardwebhooks package. Signing and rotation, retries with a stable webhook-id, 410
// disabling, replay, an alert raised by real work, and tenancy.
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { webhookEndpoints } from "../../src/features/event-webhooks/tables";
import type { PublishedEvent } from "../../src/platform/events";
import { evaluate, patientWithDevice, series } from "../alerts/support";
import { eventually } from "../support/eventually";
import { createPipeline, definition, edge, run, trigger } from "../support/pipelines";
import { httpReceiver, type Received, receivedBy, type ScriptStep, setReceiverSecrets } from "../support/outbound-peers";
import { createTenant, type Tenant } from "../support/tenants";

interface EndpointView {
  id: string;
  url: string;
  event_types: string[];
  enabled: boolean;
  disabled_reason: string | null;
  disabled_at: string | null;
  destination_id: string | null;
  previous_secret_expires_at: string | null;
  secret?: string;
}
interface DeliveryView {
  id: string;
  event_id: string | null;
  event_type: string | null;
  state: string;
  attempts: number;
  last_status: number | null;
}
interface ApiErrorBody {
  error: { code: string; message: string; status: number; details?: { path: string; message: string }[] };
}

const json = async <T>(res: Response | Promise<Response>) => (await (await res).json()) as T;

async function register(t: Tenant, url: string, event_types: string[], extra: Record<string, unknown> = {}): Promise<EndpointView & { secret: string }> {
  const res = await t.fetch("/api/v1/webhook-endpoints", { method: "POST", json: { url, event_types, ...extra } });
  expect(res.status, await res.clone().text()).toBe(201);
  return (await res.json()) as EndpointView & { secret: string };
}

/** A loopback receiver verifying with the endpoint's secret, and the endpoint registered to it. */
async function receiverEndpoint(t: Tenant, event_types: string[], script: ScriptStep[] = []) {
  const peer = await httpReceiver(script);
  const endpoint = await register(t, peer.url, event_types);
  await setReceiverSecrets(peer.id, [endpoint.secret]);
  return { peer, endpoint };
}

const event = (type: string, data: Record<string, unknown> = {}, occurred_at = new Date().toISOString()): PublishedEvent => ({ type, id: `${type}.${crypto.randomUUID()}`, occurred_at, data });

const receivedWhen = (peerId: string, done: (r: Received[]) => boolean, timeoutMs = 20_000) => eventually(() => receivedBy(peerId), done, timeoutMs);

const deliveries = async (t: Tenant, endpointId: string, query = "") => (await json<{ deliveries: DeliveryView[] }>(t.fetch(`/api/v1/webhook-endpoints/${endpointId}/deliveries?limit=100${query}`))).deliveries;

const bodyOf = (r: Received) => JSON.parse(r.body) as { id: string; type: string; timestamp: string; data: Record<string, unknown> };

describe("the webhook endpoints API", () => {
  it("creates with the secret shown once, lists, gets, changes and deletes; bad input is a 400 in the API's error shape", async () => {
    const t = await createTenant();
    const peer = await httpReceiver();
    const created = await register(t, peer.url, ["alert.*", "execution.failed"], { description: "on-call" });
    expect(created.secret).toMatch(/^whsec_/);
    expect(created).toMatchObject({ url: peer.url, event_types: ["alert.*", "execution.failed"], enabled: true, disabled_reason: null });
    expect(created.destination_id).toBeTruthy();

    const got = await json<EndpointView>(t.fetch(`/api/v1/webhook-endpoints/${created.id}`));
    expect(got.id).toBe(created.id);
    expect(got).not.toHaveProperty("secret");
    const list = await json<{ webhook_endpoints: EndpointView[]; total_count: number }>(t.fetch("/api/v1/webhook-endpoints?limit=10"));
    expect(list.total_count).toBe(1);
    expect(list.webhook_endpoints[0]).not.toHaveProperty("secret");
    expect(JSON.stringify(list)).not.toContain(created.secret);

    const patched = await t.fetch(`/api/v1/webhook-endpoints/${created.id}`, { method: "PATCH", json: { event_types: ["sync.*"] } });
    expect(patched.status).toBe(200);
    expect(((await patched.json()) as EndpointView).event_types).toEqual(["sync.*"]);

    const badUrl = await t.fetch("/api/v1/webhook-endpoints", { method: "POST", json: { url: "http://example.com/hook", event_types: ["alert.raised", "no.such.type"] } });
    expect(badUrl.status).toBe(400);
    const body = (await badUrl.json()) as ApiErrorBody;
    expect(body.error).toMatchObject({ code: "VALIDATION_FAILED", status: 400 });
    expect(body.error.details?.map((d) => d.path).sort()).toEqual(["event_types[1]", "url"]);
    const notJson = await t.fetch("/api/v1/webhook-endpoints", { method: "POST", json: { url: 42 } });
    expect(notJson.status).toBe(400);
    expect(((await notJson.json()) as ApiErrorBody).error.code).toBe("VALIDATION_FAILED");

    const missing = await t.fetch("/api/v1/webhook-endpoints/nope");
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as ApiErrorBody).error).toMatchObject({ code: "WEBHOOK_ENDPOINT_NOT_FOUND", status: 404 });

    expect((await t.fetch(`/api/v1/webhook-endpoints/${created.id}`, { method: "DELETE" })).status).toBe(204);
    expect((await t.fetch(`/api/v1/webhook-endpoints/${created.id}`)).status).toBe(404);
    // Its managed destination went with it.
    expect((await t.fetch(`/api/v1/destinations/${created.destination_id}`)).status).toBe(404);
  });
});

describe("delivery through the endpoint's queue", () => {
  it("every request is signed: the receiver verifies it with standardwebhooks; the delivery log shows it delivered under the webhook-id", async () => {
    const t = await createTenant();
    const { peer, endpoint } = await receiverEndpoint(t, ["alert.*"]);
    const raised = event("alert.raised", { alert_id: "a1", severity: "high" });
    await t.ctx.publish([raised, event("sync.completed", { sync_id: "s1" })]);
    const [got] = await receivedWhen(peer.id, (r) => r.length >= 1);
    expect(got?.verified, got?.error).toBe(true);
    expect(bodyOf(got!)).toEqual({ id: raised.id, type: "alert.raised", timestamp: raised.occurred_at, data: raised.data });
    const log = await eventually(() => deliveries(t, endpoint.id), (d) => d[0]?.state === "delivered");
    expect(log).toHaveLength(1); // not subscribed to sync.*
    expect(log[0]).toMatchObject({ id: got?.headers["webhook-id"], event_id: raised.id, event_type: "alert.raised", state: "delivered", attempts: 1, last_status: 200 });
    const detail = await json<{ payload: string; attempt_log: { ok: boolean; status: number }[] }>(t.fetch(`/api/v1/webhook-endpoints/${endpoint.id}/deliveries/${log[0]?.id}`));
    expect(detail.payload).toBe(got?.body);
    expect(detail.attempt_log).toMatchObject([{ ok: true, status: 200 }]);
    // Only alert.raised reached the receiver.
    expect((await receivedBy(peer.id)).map((r) => bodyOf(r).type)).toEqual(["alert.raised"]);
  });

  it("during a rotation's overlap each request carries both signatures and verifies with the new and with the old secret; overlap 0 leaves only the new", async () => {
    const t = await createTenant();
    const { peer, endpoint } = await receiverEndpoint(t, ["*"]);
    const rotated = await t.fetch(`/api/v1/webhook-endpoints/${endpoint.id}/rotate-secret`, { method: "POST", json: { overlap_hours: 24 } });
    expect(rotated.status).toBe(200);
    const next = (await rotated.json()) as EndpointView & { secret: string };
    expect(next.secret).toMatch(/^whsec_/);
    expect(next.secret).not.toBe(endpoint.secret);
    expect(next.previous_secret_expires_at).not.toBeNull();
    await setReceiverSecrets(peer.id, [next.secret, endpoint.secret]);
    await t.ctx.publish([event("sync.completed", { sync_id: "s1" })]);
    const [during] = await receivedWhen(peer.id, (r) => r.length >= 1);
    expect(during?.headers["webhook-signature"]?.split(" ")).toHaveLength(2);
    expect(during?.verified_each).toEqual([true, true]);

    const ended = await json<EndpointView & { secret: string }>(t.fetch(`/api/v1/webhook-endpoints/${endpoint.id}/rotate-secret`, { method: "POST", json: { overlap_hours: 0 } }));
    await setReceiverSecrets(peer.id, [ended.secret, next.secret, endpoint.secret]);
    await t.ctx.publish([event("sync.completed", { sync_id: "s2" })]);
    const after = (await receivedWhen(peer.id, (r) => r.length >= 2))[1];
    expect(after?.headers["webhook-signature"]?.split(" ")).toHaveLength(1);
    expect(after?.verified_each).toEqual([true, false, false]);
  });

  it("a receiver answering 500 then recovering: retried until delivered, with the same webhook-id on every attempt", async () => {
    const t = await createTenant();
    const { peer, endpoint } = await receiverEndpoint(t, ["execution.failed"], [{ status: 500, times: 2 }]);
    const failed = event("execution.failed", { execution_id: "x1", error: { code: "BOOM" } });
    await t.ctx.publish([failed]);
    const got = await receivedWhen(peer.id, (r) => r.length >= 3, 30_000);
    expect(got.map((r) => r.answered)).toEqual(["500", "500", "200"]);
    expect(new Set(got.map((r) => r.headers["webhook-id"])).size).toBe(1);
    expect(got.every((r) => r.verified)).toBe(true);
    expect(got.every((r) => bodyOf(r).id === failed.id)).toBe(true);
    const [log] = await eventually(() => deliveries(t, endpoint.id), (d) => d[0]?.state === "delivered");
    expect(log).toMatchObject({ id: got[0]?.headers["webhook-id"], state: "delivered", attempts: 3, last_status: 200 });
    expect((await json<EndpointView>(t.fetch(`/api/v1/webhook-endpoints/${endpoint.id}`))).enabled).toBe(true);
  });

  it("410 Gone disables the endpoint at once (no retry) and webhook.endpoint.disabled reaches another endpoint", async () => {
    const t = await createTenant();
    const gone = await receiverEndpoint(t, ["*"], [{ status: 410 }]);
    const watcher = await receiverEndpoint(t, ["webhook.endpoint.disabled"]);
    await t.ctx.publish([event("sync.completed", { sync_id: "s1" })]);
    const disabled = await eventually(() => json<EndpointView>(t.fetch(`/api/v1/webhook-endpoints/${gone.endpoint.id}`)), (e) => !e.enabled);
    expect(disabled).toMatchObject({ enabled: false, disabled_reason: "gone" });
    expect(disabled.disabled_at).not.toBeNull();
    const [told] = await receivedWhen(watcher.peer.id, (r) => r.length >= 1);
    expect(told?.verified).toBe(true);
    expect(bodyOf(told!)).toMatchObject({ type: "webhook.endpoint.disabled", data: { endpoint_id: gone.endpoint.id, url: gone.peer.url, disabled_reason: "gone" } });
    const [log] = await deliveries(t, gone.endpoint.id);
    expect(log).toMatchObject({ state: "dead", attempts: 1, last_status: 410 });
    // The disabled endpoint was not told of itself, and was asked once.
    expect(await receivedBy(gone.peer.id)).toHaveLength(1);
    // Replaying to a disabled endpoint is refused until it is enabled again.
    const refused = await t.fetch(`/api/v1/webhook-endpoints/${gone.endpoint.id}/replay`, { method: "POST", json: { event_id: "whatever" } });
    expect(refused.status).toBe(409);
    const enabled = await json<EndpointView>(t.fetch(`/api/v1/webhook-endpoints/${gone.endpoint.id}`, { method: "PATCH", json: { enabled: true } }));
    expect(enabled).toMatchObject({ enabled: true, disabled_reason: null, disabled_at: null });
  });

  it("an endpoint failing for 5 days is disabled on its next failure: its message waits, and is delivered once it is enabled again", async () => {
    const t = await createTenant();
    const failing = await receiverEndpoint(t, ["sync.completed"], [{ status: 500, times: 1 }]);
    const watcher = await receiverEndpoint(t, ["webhook.endpoint.disabled"]);
    // Its first failure after its last success was six days ago (the rule counts from there).
    const sixDaysAgo = new Date(Date.now() - 6 * 86_400_000).toISOString();
    await t.ctx.db.update(webhookEndpoints).set({ failingSince: sixDaysAgo }).where(eq(webhookEndpoints.id, failing.endpoint.id));
    const sent = event("sync.completed", { sync_id: "s-late" });
    await t.ctx.publish([sent]);
    const disabled = await eventually(() => json<EndpointView>(t.fetch(`/api/v1/webhook-endpoints/${failing.endpoint.id}`)), (e) => !e.enabled);
    expect(disabled).toMatchObject({ enabled: false, disabled_reason: "failing" });
    const [told] = await receivedWhen(watcher.peer.id, (r) => r.length >= 1);
    expect(bodyOf(told!)).toMatchObject({ type: "webhook.endpoint.disabled", data: { endpoint_id: failing.endpoint.id, disabled_reason: "failing", detail: expect.stringMatching(/^HTTP 500/) } });
    // Not dead: the message waits in the paused queue, unanswered.
    const [waiting] = await deliveries(t, failing.endpoint.id);
    expect(waiting).toMatchObject({ event_id: sent.id, attempts: 1, last_status: 500 });
    expect(waiting!.state).not.toMatch(/dead|delivered/);
    // Enabled again: the queue resumes and the receiver (answering 200 now) gets it, same webhook-id.
    expect((await json<EndpointView>(t.fetch(`/api/v1/webhook-endpoints/${failing.endpoint.id}`, { method: "PATCH", json: { enabled: true } }))).enabled).toBe(true);
    const [log] = await eventually(() => deliveries(t, failing.endpoint.id), (d) => d[0]?.state === "delivered", 30_000);
    const got = await receivedBy(failing.peer.id);
    expect(got.map((r) => r.answered)).toEqual(["500", "200"]);
    expect(new Set(got.map((r) => r.headers["webhook-id"]))).toEqual(new Set([log!.id]));
  });

  it("replays one event and a time range under the original webhook-ids", async () => {
    const t = await createTenant();
    const { peer, endpoint } = await receiverEndpoint(t, ["sync.*"]);
    const base = Date.now() - 3_600_000;
    const at = (minutes: number) => new Date(base + minutes * 60_000).toISOString();
    const events = [event("sync.completed", { sync_id: "s1" }, at(0)), event("sync.failed", { sync_id: "s2" }, at(10)), event("sync.completed", { sync_id: "s3" }, at(20))];
    await t.ctx.publish(events);
    const first = await receivedWhen(peer.id, (r) => r.length >= 3);
    const idOf = new Map(first.map((r) => [bodyOf(r).id, r.headers["webhook-id"]]));
    await eventually(() => deliveries(t, endpoint.id), (d) => d.length === 3 && d.every((m) => m.state === "delivered"));

    const one = await t.fetch(`/api/v1/webhook-endpoints/${endpoint.id}/replay`, { method: "POST", json: { event_id: events[1]!.id } });
    expect(one.status, await one.clone().text()).toBe(202);
    expect(await one.json()).toEqual({ replayed: [{ event_id: events[1]!.id, delivery_id: idOf.get(events[1]!.id) }], truncated: false });
    const afterOne = await receivedWhen(peer.id, (r) => r.length >= 4);
    expect(bodyOf(afterOne[3]!).id).toBe(events[1]!.id);
    expect(afterOne[3]?.headers["webhook-id"]).toBe(idOf.get(events[1]!.id));
    expect(afterOne[3]?.verified).toBe(true);

    const range = await json<{ replayed: { event_id: string }[] }>(t.fetch(`/api/v1/webhook-endpoints/${endpoint.id}/replay`, { method: "POST", json: { from: at(5), to: at(25) } }));
    expect(range.replayed.map((r) => r.event_id)).toEqual([events[1]!.id, events[2]!.id]);
    const all = await receivedWhen(peer.id, (r) => r.length >= 6);
    const replayed = all.slice(4);
    expect(replayed.map((r) => bodyOf(r).id).sort()).toEqual([events[1]!.id, events[2]!.id].sort());
    for (const r of replayed) expect(r.headers["webhook-id"]).toBe(idOf.get(bodyOf(r).id));
    expect(replayed.every((r) => r.verified)).toBe(true);

    const unknown = await t.fetch(`/api/v1/webhook-endpoints/${endpoint.id}/replay`, { method: "POST", json: { event_id: "sync.completed.nope" } });
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as ApiErrorBody).error.code).toBe("WEBHOOK_EVENT_NOT_FOUND");
  });

  it("an alert raised by evaluating stored readings, then acknowledged through the API, reaches the receiver in that order", async () => {
    const t = await createTenant();
    const { peer } = await receiverEndpoint(t, ["alert.*"]);
    const who = await patientWithDevice(t);
    const rule = await t.fetch("/api/v1/alert-rules", { method: "POST", json: { patient_id: who.patientId, metric: "heart_rate", kind: "high_value", threshold: 120, recipients: "patient", severity: "high" } });
    expect(rule.status, await rule.clone().text()).toBe(201);
    const result = await evaluate(t, await series(t, who, "heart_rate", [100, 140], new Date(Date.now() - 120_000)));
    expect(result.opened).toHaveLength(1);
    const [raised] = await receivedWhen(peer.id, (r) => r.length >= 1);
    const alertId = bodyOf(raised!).data.alert_id as string;
    expect(bodyOf(raised!)).toMatchObject({ type: "alert.raised", data: { patient_id: who.patientId, kind: "high_value", severity: "high", value: 140, limit: 120 } });
    // Acknowledged through the alerts API.
    const ack = await t.fetch(`/api/v1/alerts/${alertId}/acknowledge`, { method: "POST", json: { note: "seen" } });
    expect(ack.status, await ack.clone().text()).toBe(200);
    const both = await receivedWhen(peer.id, (r) => r.length >= 2);
    expect(both.map((r) => bodyOf(r).type)).toEqual(["alert.raised", "alert.acknowledged"]);
    expect(bodyOf(both[1]!).data).toMatchObject({ alert_id: alertId, note: "seen" });
    expect(both.every((r) => r.verified)).toBe(true);
  });
});

describe("events of pipeline runs", () => {
  it("a pipeline run that fails raises execution.failed to the receiver, with the failing node", async () => {
    const t = await createTenant();
    const { peer } = await receiverEndpoint(t, ["execution.*"]);
    const pipelineId = await createPipeline(t, definition([trigger(), { id: "bad", type: "data.transform", config: { expression: "$error('no good')" } }], [edge("start", "bad", "event")]));
    const { body } = await run(t, pipelineId);
    expect(body.status).toBe("failed");
    const [got] = await receivedWhen(peer.id, (r) => r.length >= 1);
    expect(got?.verified).toBe(true);
    expect(bodyOf(got!)).toMatchObject({ type: "execution.failed", data: { execution_id: body.execution_id, pipeline_id: pipelineId, error: { code: "EXPRESSION_FAILED", node_id: "bad", node_type: "data.transform" } } });
  });
});

describe("tenancy", () => {
  it("org B's endpoint never receives org A's events, and B cannot read or act on A's endpoints or delivery logs", async () => {
    const a = await createTenant();
    const b = await createTenant();
    const ea = await receiverEndpoint(a, ["*"]);
    const eb = await receiverEndpoint(b, ["*"]);
    const ofA = event("sync.completed", { sync_id: "a-sync" });
    const ofB = event("sync.completed", { sync_id: "b-sync" });
    await a.ctx.publish([ofA]);
    await b.ctx.publish([ofB]);
    await receivedWhen(ea.peer.id, (r) => r.length >= 1);
    await receivedWhen(eb.peer.id, (r) => r.length >= 1);
    const [deliveredA] = await eventually(() => deliveries(a, ea.endpoint.id), (d) => d[0]?.state === "delivered");
    expect((await receivedBy(ea.peer.id)).map((r) => bodyOf(r).id)).toEqual([ofA.id]);
    expect((await receivedBy(eb.peer.id)).map((r) => bodyOf(r).id)).toEqual([ofB.id]);

    const base = `/api/v1/webhook-endpoints/${ea.endpoint.id}`;
    for (const [path, init] of [
      [base, {}],
      [base, { method: "PATCH", json: { enabled: false } }],
      [`${base}/deliveries`, {}],
      [`${base}/deliveries/${deliveredA?.id}`, {}],
      [`${base}/rotate-secret`, { method: "POST", json: {} }],
      [`${base}/replay`, { method: "POST", json: { event_id: ofA.id } }],
      [base, { method: "DELETE" }],
    ] as const) {
      const res = await b.fetch(path, init);
      expect(res.status, `${"method" in init ? init.method : "GET"} ${path}`).toBe(404);
      expect(((await res.json()) as ApiErrorBody).error.code).toBe("WEBHOOK_ENDPOINT_NOT_FOUND");
    }
    const listB = await json<{ webhook_endpoints: EndpointView[] }>(b.fetch("/api/v1/webhook-endpoints"));
    expect(listB.webhook_endpoints.map((e) => e.id)).toEqual([eb.endpoint.id]);
    // B's endpoint's own log holds only B's event; A's is intact.
    expect((await deliveries(b, eb.endpoint.id)).map((d) => d.event_id)).toEqual([ofB.id]);
    expect((await json<EndpointView>(a.fetch(base))).enabled).toBe(true);
  });
});

describe("FHIR changes as events", () => {
  it("a Patient created and updated through the FHIR API reaches an endpoint subscribed to fhir.Patient.*, signed, in order", async () => {
    const t = await createTenant();
    const { peer } = await receiverEndpoint(t, ["fhir.Patient.*"]);
    const created = await t.fetch(`/fhir/r4/${t.orgId}/Patient`, { method: "POST", headers: { "content-type": "application/fhir+json" }, body: JSON.stringify({ resourceType: "Patient", name: [{ family: "Doe" }] }) });
    expect(created.status).toBe(201);
    const patient = (await created.json()) as { id: string };
    const updated = await t.fetch(`/fhir/r4/${t.orgId}/Patient/${patient.id}`, { method: "PUT", headers: { "content-type": "application/fhir+json" }, body: JSON.stringify({ resourceType: "Patient", id: patient.id, name: [{ family: "Roe" }] }) });
    expect(updated.status).toBe(200);
    await t.fetch(`/fhir/r4/${t.orgId}/Observation`, { method: "POST", headers: { "content-type": "application/fhir+json" }, body: JSON.stringify({ resourceType: "Observation", status: "final", code: { text: "x" } }) });
    const got = await receivedWhen(peer.id, (r) => r.length >= 2);
    expect(got.every((r) => r.verified)).toBe(true);
    expect(got.map((r) => [bodyOf(r).type, bodyOf(r).data.reference, bodyOf(r).data.version_id])).toEqual([
      ["fhir.Patient.created", `Patient/${patient.id}`, "1"],
      ["fhir.Patient.updated", `Patient/${patient.id}`, "2"],
    ]);
  });
});
