// Destinations with durable queues (docs/destinations.md) against scripted loopback receivers
// (test/setup/outbound-peers.ts): an MLLP receiver that ACKs AA, then AE, then drops connections
// and recovers; HTTP receivers answering 5xx, 4xx, 410 and redirects; the operator's actions;
// a connector deleted under a destination; queued pipeline sends; and tenancy.
import { describe, expect, it } from "vitest";
import { eventually } from "../support/eventually";
import { httpReceiver, mllpReceiver, receivedBy } from "../support/outbound-peers";
import { createPipeline, definition, edge, run, trigger } from "../support/pipelines";
import { createTenant, type Tenant } from "../support/tenants";

const FAST_RETRY = { initial_delay_ms: 100, max_delay_ms: 400 };

interface Figures {
  depth: number;
  dead: number;
  delivered: { m15: number };
  failing_since: string | null;
  last_failure: { class: string } | null;
}
interface DestinationView {
  id: string;
  status: string;
  state: string;
  figures: Figures;
}
interface Message {
  id: string;
  state: string;
  attempts: number;
  key: string;
  last_result: { ok: boolean; ack_code?: string; status?: number; failure?: { class: string; message: string } } | null;
}

const hl7 = (control: string, mrn = "4711") => `MSH|^~\\&|CDIS|HOSP|LIS|HOSP|20260101000000||ADT^A08|${control}|P|2.5.1\rPID|1||${mrn}^^^HOSP^MR||Doe^Jane`;

async function connector(t: Tenant, endpoint: string, type = "mllp"): Promise<string> {
  const res = await t.fetch("/api/connectors", { method: "POST", json: { name: `c-${crypto.randomUUID().slice(0, 8)}`, type, endpoint } });
  expect(res.status).toBe(201);
  return ((await res.json()) as { id: string }).id;
}

async function destination(t: Tenant, body: Record<string, unknown>): Promise<DestinationView> {
  const res = await t.fetch("/api/v1/destinations", { method: "POST", json: { name: `d-${crypto.randomUUID().slice(0, 8)}`, retry: FAST_RETRY, ...body } });
  expect(res.status, await res.clone().text()).toBe(201);
  return (await res.json()) as DestinationView;
}

async function enqueue(t: Tenant, id: string, messages: Record<string, unknown>[]) {
  const res = await t.fetch(`/api/v1/destinations/${id}/messages`, { method: "POST", json: { messages } });
  expect(res.status, await res.clone().text()).toBe(202);
  return (await res.json()) as { ids: string[]; duplicates: string[] };
}

async function messages(t: Tenant, id: string, query = ""): Promise<Message[]> {
  const res = await t.fetch(`/api/v1/destinations/${id}/messages?limit=100${query}`);
  expect(res.status).toBe(200);
  return ((await res.json()) as { messages: Message[] }).messages;
}

async function view(t: Tenant, id: string): Promise<DestinationView> {
  return (await (await t.fetch(`/api/v1/destinations/${id}`)).json()) as DestinationView;
}

const settled = (t: Tenant, id: string, n: number) => eventually(() => messages(t, id), (ms) => ms.length === n && ms.every((m) => m.state !== "queued" && m.state !== "in_flight"), 20_000);

/** The control ids the receiver acknowledged with AA, in the order it did. */
const acceptedOrder = async (peer: string) => (await receivedBy(peer)).filter((r) => r.answered === "AA").map((r) => r.body.split("\r")[0]!.split("|")[9]);

describe("destination queues over MLLP", () => {
  it("an MLLP receiver that ACKs AA, then AE, then drops connections and recovers: every message delivered once, in order", async () => {
    const t = await createTenant();
    const peer = await mllpReceiver([{ reply: "AA" }, { reply: "AE", times: 2 }, { reply: "drop", times: 2 }, { reply: "half" }]);
    const d = await destination(t, { target: { kind: "connector", connector_id: await connector(t, `mllp://127.0.0.1:${peer.port}`) } });
    const controls = ["M1", "M2", "M3", "M4", "M5"];
    await enqueue(t, d.id, controls.map((c) => ({ id: `delivery-${c}`, body: hl7(c) })));
    const done = await settled(t, d.id, 5);
    expect(done.map((m) => m.state)).toEqual(["delivered", "delivered", "delivered", "delivered", "delivered"]);
    // Accepted once each, in enqueue order; the AE and the dropped attempts were of M2 (the head waits).
    expect(await acceptedOrder(peer.id)).toEqual(controls);
    const m2 = done.find((m) => m.id === "delivery-M2")!;
    expect(m2.attempts).toBe(6);
    const detail = (await (await t.fetch(`/api/v1/destinations/${d.id}/messages/delivery-M2`)).json()) as { attempts: { result: Message["last_result"] }[] };
    expect(detail.attempts.map((a) => a.result!.failure?.class ?? a.result!.ack_code)).toEqual(["nack", "nack", "refused", "refused", "refused", "AA"]);
    // One connection kept open: AE answers keep it; each dropped or cut one is replaced by the next attempt's.
    expect((await receivedBy(peer.id)).map((r) => r.connection)).toEqual([1, 1, 1, 1, 2, 3, 4, 4, 4, 4]);
    const figures = (await view(t, d.id)).figures;
    expect(figures.depth).toBe(0);
    expect(figures.delivered.m15).toBe(5);
  });

  it("one connection carries the destination's messages from drain to drain; one the receiver closed is replaced, nothing lost or sent twice", async () => {
    const t = await createTenant();
    const peer = await mllpReceiver([{ reply: "AA" }, { reply: "AA", close_after: true }]);
    const d = await destination(t, { target: { kind: "connector", connector_id: await connector(t, `mllp://127.0.0.1:${peer.port}`) } });
    // Each enqueue after the last settled starts a drain of its own.
    await enqueue(t, d.id, [{ id: "k1", body: hl7("K1") }]);
    await settled(t, d.id, 1);
    await enqueue(t, d.id, [{ id: "k2", body: hl7("K2") }]);
    await settled(t, d.id, 2);
    await eventually(() => receivedBy(peer.id), (r) => r.length === 2);
    await enqueue(t, d.id, [{ id: "k3", body: hl7("K3") }, { id: "k4", body: hl7("K4") }]);
    const done = await settled(t, d.id, 4);
    expect(done.map((m) => [m.id, m.state, m.attempts])).toEqual([
      ["k4", "delivered", 1],
      ["k3", "delivered", 1],
      ["k2", "delivered", 1],
      ["k1", "delivered", 1],
    ]);
    const received = await receivedBy(peer.id);
    expect(received.map((r) => [r.body.split("\r")[0]!.split("|")[9], r.connection])).toEqual([
      ["K1", 1],
      ["K2", 1],
      ["K3", 2],
      ["K4", 2],
    ]);
  });

  it("AR is permanent: the message is dead with the ACK, the queue moves on, and reprocess sends it again with its delivery id", async () => {
    const t = await createTenant();
    const peer = await mllpReceiver([{ reply: "AR" }]);
    const d = await destination(t, { target: { kind: "connector", connector_id: await connector(t, `mllp://127.0.0.1:${peer.port}`) } });
    await enqueue(t, d.id, [{ id: "r1", body: hl7("R1") }, { id: "r2", body: hl7("R2") }]);
    const done = await settled(t, d.id, 2);
    const dead = done.find((m) => m.id === "r1")!;
    expect(dead.state).toBe("dead");
    expect(dead.last_result).toMatchObject({ ok: false, ack_code: "AR", failure: { class: "reject" } });
    expect(done.find((m) => m.id === "r2")!.state).toBe("delivered");
    expect((await view(t, d.id)).figures.dead).toBe(1);
    const res = await t.fetch(`/api/v1/destinations/${d.id}/messages/reprocess`, { method: "POST", json: {} });
    expect(await res.json()).toEqual({ affected: 1 });
    await eventually(() => messages(t, d.id, "&state=delivered"), (ms) => ms.length === 2);
    expect(await acceptedOrder(peer.id)).toEqual(["R2", "R1"]);
  });

  it("a receiver that answers too slowly is a timeout, retried with the same control id", async () => {
    const t = await createTenant();
    const peer = await mllpReceiver([{ reply: "silent" }, { reply: "AA", delay_ms: 2_000 }]);
    const d = await destination(t, { timeout_ms: 300, target: { kind: "connector", connector_id: await connector(t, `mllp://127.0.0.1:${peer.port}`) } });
    await enqueue(t, d.id, [{ id: "slow", body: hl7("S1") }]);
    const [m] = await settled(t, d.id, 1);
    expect(m).toMatchObject({ state: "delivered", attempts: 3 });
    const detail = (await (await t.fetch(`/api/v1/destinations/${d.id}/messages/slow`)).json()) as { attempts: { result: Message["last_result"] }[] };
    expect(detail.attempts.map((a) => a.result!.failure?.class ?? a.result!.ack_code)).toEqual(["timeout", "timeout", "AA"]);
    expect((await receivedBy(peer.id)).map((r) => r.body.split("\r")[0]!.split("|")[9])).toEqual(["S1", "S1", "S1"]);
  });

  it("per_key ordering: a failing key waits while the other keys proceed", async () => {
    const t = await createTenant();
    // The first message (patient A) is refused twice; B's go through meanwhile.
    const peer = await mllpReceiver([{ reply: "AE", times: 2, control_prefix: "A" }]);
    const d = await destination(t, { ordering: "per_key", concurrency: 1, target: { kind: "connector", connector_id: await connector(t, `mllp://127.0.0.1:${peer.port}`) } });
    await enqueue(t, d.id, [
      { id: "a1", key: "A", body: hl7("A1", "A") },
      { id: "b1", key: "B", body: hl7("B1", "B") },
      { id: "a2", key: "A", body: hl7("A2", "A") },
      { id: "b2", key: "B", body: hl7("B2", "B") },
    ]);
    await settled(t, d.id, 4);
    const order = await acceptedOrder(peer.id);
    expect(order.filter((c) => c!.startsWith("A"))).toEqual(["A1", "A2"]);
    expect(order.filter((c) => c!.startsWith("B"))).toEqual(["B1", "B2"]);
    expect(order.indexOf("B1")).toBeLessThan(order.indexOf("A1"));
  });
});

describe("destination queues over HTTP", () => {
  it("5xx and 429 are retried; 4xx, 410 and redirects are permanent, each with its class; every request carries its delivery id", async () => {
    const t = await createTenant();
    const peer = await httpReceiver([{ status: 503 }, { status: 429 }, { status: 200 }, { status: 400 }, { status: 410 }, { status: 302, location: "http://127.0.0.1:1/elsewhere" }]);
    const d = await destination(t, { target: { kind: "url", url: peer.url } });
    await enqueue(t, d.id, ["h1", "h2", "h3", "h4"].map((id) => ({ id, body: JSON.stringify({ id }) })));
    const done = await settled(t, d.id, 4);
    const byId = Object.fromEntries(done.map((m) => [m.id, m]));
    expect(byId.h1).toMatchObject({ state: "delivered", attempts: 3 });
    expect(byId.h2!.last_result).toMatchObject({ status: 400, failure: { class: "client_error" } });
    expect(byId.h3!.last_result).toMatchObject({ status: 410, failure: { class: "gone" } });
    expect(byId.h4!.last_result).toMatchObject({ status: 302, failure: { class: "redirect" } });
    const got = await receivedBy(peer.id);
    expect(got.map((r) => r.headers["x-delivery-id"])).toEqual(["h1", "h1", "h1", "h2", "h3", "h4"]);
    expect(got.slice(0, 3).map((r) => r.headers["x-delivery-attempt"])).toEqual(["1", "2", "3"]);
  });

  it("a destination's URL is held to the outbound guard", async () => {
    const t = await createTenant();
    const res = await t.fetch("/api/v1/destinations", { method: "POST", json: { name: "metadata", target: { kind: "url", url: "http://169.254.169.254/latest" } } });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("DESTINATION_NOT_ALLOWED");
  });
});

describe("operator actions", () => {
  it("pause holds, resume delivers; skip sets one aside; purge deletes; each is audited", async () => {
    const t = await createTenant();
    const peer = await httpReceiver();
    const d = await destination(t, { target: { kind: "url", url: peer.url } });
    expect((await (await t.fetch(`/api/v1/destinations/${d.id}/pause`, { method: "POST" })).json()) as DestinationView).toMatchObject({ state: "paused", status: "paused" });
    await enqueue(t, d.id, [{ id: "p1", body: "{}" }, { id: "p2", body: "{}" }, { id: "p3", body: "{}" }]);
    await new Promise((r) => setTimeout(r, 300));
    expect(await receivedBy(peer.id)).toHaveLength(0);
    expect((await view(t, d.id)).figures.depth).toBe(3);
    expect(await (await t.fetch(`/api/v1/destinations/${d.id}/messages/p2/skip`, { method: "POST" })).json()).toEqual({ affected: 1 });
    await t.fetch(`/api/v1/destinations/${d.id}/resume`, { method: "POST" });
    const done = await settled(t, d.id, 3);
    expect(done.map((m) => [m.id, m.state])).toEqual([
      ["p3", "delivered"],
      ["p2", "skipped"],
      ["p1", "delivered"],
    ]);
    expect((await receivedBy(peer.id)).map((r) => r.headers["x-delivery-id"])).toEqual(["p1", "p3"]);
    const purge = await t.fetch(`/api/v1/destinations/${d.id}/messages/purge`, { method: "POST", json: { states: ["skipped", "delivered"] } });
    expect(await purge.json()).toEqual({ affected: 3 });
    const del = await t.fetch(`/api/v1/destinations/${d.id}`, { method: "DELETE" });
    expect(del.status).toBe(204);
    const audits = await eventually(
      async () => ((await (await t.fetch("/api/audit?limit=50")).json()) as { events?: { action?: string }[]; audit_events?: unknown[] }),
      (page) => JSON.stringify(page).includes("destination.purge"),
    );
    for (const action of ["destination.create", "destination.pause", "destination.skip", "destination.resume", "destination.purge", "destination.delete"]) expect(JSON.stringify(audits)).toContain(action);
  });

  it("a destination with waiting messages cannot be deleted; an id enqueued twice is queued once", async () => {
    const t = await createTenant();
    const d = await destination(t, { target: { kind: "url", url: (await httpReceiver()).url } });
    await t.fetch(`/api/v1/destinations/${d.id}/pause`, { method: "POST" });
    expect((await enqueue(t, d.id, [{ id: "x", body: "{}" }])).duplicates).toEqual([]);
    expect((await enqueue(t, d.id, [{ id: "x", body: "{}" }])).duplicates).toEqual(["x"]);
    const del = await t.fetch(`/api/v1/destinations/${d.id}`, { method: "DELETE" });
    expect(del.status).toBe(409);
    expect(((await del.json()) as { error: { code: string } }).error.code).toBe("DESTINATION_NOT_EMPTY");
  });

  it("a connector deleted under a destination holds its messages as a configuration failure, not lost", async () => {
    const t = await createTenant();
    const peer = await mllpReceiver();
    const c = await connector(t, `mllp://127.0.0.1:${peer.port}`);
    const d = await destination(t, { target: { kind: "connector", connector_id: c } });
    expect((await t.fetch(`/api/connectors/${c}`, { method: "DELETE" })).status).toBe(204);
    await enqueue(t, d.id, [{ id: "held", body: hl7("H1") }]);
    const failing = await eventually(() => view(t, d.id), (v) => v.status === "failing");
    expect(failing.figures).toMatchObject({ depth: 1, last_failure: { class: "configuration" } });
    // Pointed at a live connector, the held message goes out.
    const patch = await t.fetch(`/api/v1/destinations/${d.id}`, { method: "PATCH", json: { target: { kind: "connector", connector_id: await connector(t, `mllp://127.0.0.1:${peer.port}`) } } });
    expect(patch.status).toBe(200);
    await t.fetch(`/api/v1/destinations/${d.id}/messages/retry`, { method: "POST", json: {} });
    await eventually(() => messages(t, d.id, "&state=delivered"), (ms) => ms.length === 1);
  });

  it("bad input answers the documented error shape", async () => {
    const t = await createTenant();
    const bad = await t.fetch("/api/v1/destinations", { method: "POST", json: { name: "", target: { kind: "ftp" } } });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { code: string } }).error.code).toBeTruthy();
    const missing = await t.fetch("/api/v1/destinations", { method: "POST", json: { name: "x", target: { kind: "connector", connector_id: "nope" } } });
    expect(missing.status).toBe(422);
    expect((await t.fetch("/api/v1/destinations/nope/messages")).status).toBe(404);
  });
});

describe("queued pipeline sends", () => {
  it("hl7.send with destination_id queues the message per patient and returns at once; the queue delivers it", async () => {
    const t = await createTenant();
    const peer = await mllpReceiver();
    const d = await destination(t, { ordering: "per_key", target: { kind: "connector", connector_id: await connector(t, `mllp://127.0.0.1:${peer.port}`) } });
    const p = await createPipeline(t, definition([trigger(), { id: "send", type: "hl7.send", config: { destination_id: d.id } }], [edge("start", "send", "event", "message")]));
    const { body } = await run(t, p, { message: hl7("Q1", "MRN9") });
    expect(body.status).toBe("completed");
    const queued = (body.outputs as { send: { queued: { delivery_id: string; control_id: string } } }).send.queued;
    expect(queued.control_id).toBe("Q1");
    const [m] = await eventually(() => messages(t, d.id, "&state=delivered"), (ms) => ms.length === 1);
    expect(m).toMatchObject({ id: queued.delivery_id, key: "MRN9" });
    expect(await acceptedOrder(peer.id)).toEqual(["Q1"]);
  });

  it("hl7.from_fhir takes MSH from the destination's HL7 settings, and hl7.send queues the message there", async () => {
    const t = await createTenant();
    const peer = await mllpReceiver();
    const d = await destination(t, {
      target: { kind: "connector", connector_id: await connector(t, `mllp://127.0.0.1:${peer.port}`) },
      hl7: { sending_application: "CDIS", sending_facility: "GENHOSP", receiving_application: "LIS", receiving_facility: "LAB", version: "2.4" },
    });
    const patient = { resourceType: "Patient", identifier: [{ system: "urn:hl7v2:authority:GENHOSP", value: "4711" }], name: [{ family: "Doe", given: ["Jane"] }] };
    const p = await createPipeline(
      t,
      definition(
        [trigger(), { id: "out", type: "hl7.from_fhir", config: { message_type: "ADT^A08", destination_id: d.id, msh: { receiving_application: "IGNORED" } } }, { id: "send", type: "hl7.send", config: { destination_id: d.id } }],
        [edge("start", "out", "event", "bundle"), edge("out", "send", "message", "message")],
      ),
    );
    const { body } = await run(t, p, patient);
    expect(body.status).toBe("completed");
    const [m] = await eventually(() => messages(t, d.id, "&state=delivered"), (ms) => ms.length === 1);
    const msh = (await receivedBy(peer.id))[0]!.body.split("\r")[0]!.split("|");
    expect([msh[2], msh[3], msh[4], msh[5], msh[11]]).toEqual(["CDIS", "GENHOSP", "LIS", "LAB", "2.4"]);
    expect(m!.key).toBe("4711");
  });

  it("output.enqueue queues JSON with a key from an expression; test mode queues nothing", async () => {
    const t = await createTenant();
    const peer = await httpReceiver();
    const d = await destination(t, { ordering: "per_key", target: { kind: "url", url: peer.url } });
    const def = definition([trigger(), { id: "q", type: "output.enqueue", config: { destination_id: d.id, key_expression: "subject.reference" } }], [edge("start", "q", "event", "input")]);
    const p = await createPipeline(t, def);
    const input = { resourceType: "Observation", subject: { reference: "Patient/7" } };
    const test = await t.fetch("/api/execute", { method: "POST", json: { pipeline_id: p, inputs: input, test_mode: true } });
    expect(test.status).toBe(200);
    expect(await messages(t, d.id)).toHaveLength(0);
    const { body } = await run(t, p, input);
    expect(body.status).toBe("completed");
    const [m] = await eventually(() => messages(t, d.id, "&state=delivered"), (ms) => ms.length === 1);
    expect(m!.key).toBe("Patient/7");
    expect(JSON.parse((await receivedBy(peer.id))[0]!.body)).toEqual(input);
  });
});

describe("tenancy", () => {
  it("another organization cannot see, enqueue to or act on a destination", async () => {
    const a = await createTenant();
    const b = await createTenant();
    const d = await destination(a, { target: { kind: "url", url: (await httpReceiver()).url } });
    await a.fetch(`/api/v1/destinations/${d.id}/pause`, { method: "POST" });
    await enqueue(a, d.id, [{ id: "secret", body: "{\"mrn\":\"A\"}" }]);
    for (const [method, path] of [
      ["GET", `/api/v1/destinations/${d.id}`],
      ["GET", `/api/v1/destinations/${d.id}/messages`],
      ["GET", `/api/v1/destinations/${d.id}/messages/secret`],
      ["POST", `/api/v1/destinations/${d.id}/resume`],
      ["POST", `/api/v1/destinations/${d.id}/messages/purge`],
      ["DELETE", `/api/v1/destinations/${d.id}`],
    ] as const) {
      const res = await b.fetch(path, { method, ...(path.endsWith("purge") ? { json: { states: ["queued"] } } : {}) });
      expect(res.status, `${method} ${path}`).toBe(404);
    }
    const res = await b.fetch(`/api/v1/destinations/${d.id}/messages`, { method: "POST", json: { messages: [{ body: "{}" }] } });
    expect(res.status).toBe(404);
    expect(((await (await b.fetch("/api/v1/destinations")).json()) as { total_count: number }).total_count).toBe(0);
    expect((await view(a, d.id)).figures.depth).toBe(1);
  });
});
