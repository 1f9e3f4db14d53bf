// The protocol-neutral inbound endpoint: POST /api/v1/inbound/{protocol}/messages for every
// registered adapter, the HL7 endpoint as its alias, 404 for an unknown protocol, and a second
// protocol plugged in by registering an adapter alone (nothing in features/inbound changes).
import { runDurableObjectAlarm } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { InboundAdapter } from "../../src/features/inbound/adapter";
import { inboundAdapters } from "../../src/main/catalogs";
import { orgObject } from "../../src/platform/durable-objects/object-names";
import { createPipeline, definition, edge } from "../support/pipelines";
import { type Tenant, createTenant } from "../support/tenants";

const ADT_A01 = "MSH|^~\\&|ADTSYS|GENHOSP|CDIS|CDIS|20260315083000||ADT^A01^ADT_A01|MSG00001|P|2.5.1\rPID|1||4711^^^GENHOSP^MR||Doe^Jane";

interface IngestResult {
  id: string;
  status: string;
  message_id: string;
  ack?: string;
  error?: { code: string; message: string };
}

async function post(t: Tenant, path: string, messages: { id: string; raw: string; source?: Record<string, string> }[]) {
  return t.fetch(path, { method: "POST", json: { messages } });
}

async function results(res: Response): Promise<IngestResult[]> {
  expect(res.status).toBe(200);
  return ((await res.json()) as { results: IngestResult[] }).results;
}

/**
 * A made-up line protocol, "sender;control id;type;body", acknowledged in plain text. It stands
 * for the next protocols (device messages, X12): only an adapter, registered like HL7's.
 */
const lineAdapter: InboundAdapter<{ controlId: string }> = {
  protocol: "test-lines",
  eventType: "test.line",
  blob: { folder: "lines", extension: ".txt", mediaType: "text/plain" },
  read(text) {
    const raw = text.trim();
    const [sender = "", controlId = "", type = ""] = raw.split(";");
    const facts = { messageType: type || null, triggerEvent: null, version: "1" };
    if (!sender) return { raw, header: null, facts, problem: { code: "LINE_NO_SENDER", message: "no sender" } };
    if (!controlId) return { raw, header: { controlId }, facts, problem: { code: "LINE_NO_ID", message: "no control id" } };
    return { raw, header: { controlId }, facts, key: { sender: `line:${sender}`, controlId } };
  },
  acknowledge: (header, outcome, problem) => `ACK ${outcome} ${header.controlId}${problem ? ` ${problem.code}` : ""}`,
  attributes: (m) => ({ type: m.messageType ?? "" }),
};

describe("POST /api/v1/inbound/{protocol}/messages", () => {
  it("answers 404 UNKNOWN_PROTOCOL, in the API's error shape, for a protocol no adapter serves", async () => {
    const t = await createTenant();
    for (const protocol of ["edifact", "constructor", "__proto__"]) {
      const res = await post(t, `/api/v1/inbound/${protocol}/messages`, [{ id: "a", raw: ADT_A01 }]);
      expect(res.status).toBe(404);
      const body = (await res.json()) as { error: { code: string; message: string; status: number } };
      expect(body.error).toMatchObject({ code: "UNKNOWN_PROTOCOL", status: 404 });
      expect(body.error.message).toContain("hl7v2");
    }
    expect(((await (await t.fetch("/api/hl7/messages")).json()) as { total_count: number }).total_count).toBe(0);
  });

  it("validates the batch like the HL7 endpoint", async () => {
    const t = await createTenant();
    expect((await post(t, "/api/v1/inbound/hl7v2/messages", [])).status).toBe(400);
  });

  it("gives the same answers as the HL7 endpoint, which it aliases", async () => {
    const a = await createTenant();
    const b = await createTenant();
    const batch = [
      { id: "m1", raw: ADT_A01 },
      { id: "m2", raw: "not HL7" },
      { id: "m3", raw: ADT_A01.replace("MSG00001", "") },
    ];
    const neutral = await results(await post(a, "/api/v1/inbound/hl7v2/messages", batch));
    const legacy = await results(await post(b, "/api/v1/hl7/messages", batch));
    // Ids and ACK control ids (MSH-10 of an ACK is random) differ; everything else is the same.
    const comparable = (r: IngestResult[]) => r.map(({ message_id: _, ack, ...rest }) => ({ ...rest, ack: ack?.replace(/\|[A-Za-z0-9]{20}\|P\|/, "|<ACK-ID>|P|").replace(/\|\d{14}(\.\d+)?([+-]\d{4})?\|/, "|<NOW>|") }));
    expect(comparable(neutral)).toEqual(comparable(legacy));
    expect(neutral.map((r) => r.status)).toEqual(["accepted", "rejected", "rejected"]);
    expect(neutral[0]!.ack).toContain("MSA|AA|MSG00001");
    // A resend through the other endpoint is the same message.
    const again = await results(await post(a, "/api/v1/hl7/messages", [{ id: "m1-resent", raw: ADT_A01 }]));
    expect(again[0]).toMatchObject({ status: "duplicate", message_id: neutral[0]!.message_id });
    const stored = (await (await a.fetch(`/api/hl7/messages/${neutral[0]!.message_id}`)).json()) as { protocol: string; sender: string };
    expect(stored).toMatchObject({ protocol: "hl7v2", sender: "ADTSYS|GENHOSP" });
  });

  it("is in the OpenAPI document beside the HL7 alias", async () => {
    const t = await createTenant();
    const doc = (await (await t.fetch("/api/openapi.json")).json()) as { paths: Record<string, Record<string, unknown>> };
    expect(doc.paths["/api/v1/inbound/{protocol}/messages"]?.post).toBeDefined();
    expect(doc.paths["/api/v1/hl7/messages"]?.post).toBeDefined();
  });

  it("never lists, shows or reprocesses one organization's messages for another", async () => {
    const a = await createTenant();
    const b = await createTenant();
    const [r] = await results(await post(a, "/api/v1/inbound/hl7v2/messages", [{ id: "t", raw: ADT_A01 }]));
    expect((await b.fetch(`/api/hl7/messages/${r!.message_id}`)).status).toBe(404);
    expect((await b.fetch(`/api/hl7/messages/${r!.message_id}/reprocess`, { method: "POST" })).status).toBe(404);
    expect(((await (await b.fetch("/api/hl7/messages?protocol=hl7v2")).json()) as { total_count: number }).total_count).toBe(0);
    // The same sender and control id in B is B's own message, not a duplicate of A's.
    const [own] = await results(await post(b, "/api/v1/inbound/hl7v2/messages", [{ id: "t", raw: ADT_A01 }]));
    expect(own).toMatchObject({ status: "accepted" });
    expect(own!.message_id).not.toBe(r!.message_id);
  });
});

describe("a second protocol", () => {
  let unregister: () => void;
  beforeAll(() => {
    unregister = inboundAdapters.register(lineAdapter);
  });
  afterAll(() => unregister());

  it("is ingested, acknowledged, stored and routed by its adapter alone", async () => {
    const t = await createTenant();
    // Deployed pipeline on the adapter's event type, for "alert" lines only; it returns the event.
    await createPipeline(
      t,
      definition(
        [
          { id: "in", type: "control.event_trigger", config: { event_type: "test.line", attributes: { type: "alert" } } },
          { id: "out", type: "output.respond" },
        ],
        [edge("in", "out", "event", "input")],
      ),
    );
    const sent = await results(
      await post(t, "/api/v1/inbound/test-lines/messages", [
        { id: "l1", raw: "pump-7;L1;alert;occlusion" },
        { id: "l2", raw: "pump-7;L2;note;refilled" },
        { id: "l3", raw: "pump-7;;alert;no id" },
        { id: "l4", raw: ";L4;alert" },
        { id: "l1-again", raw: "pump-7;L1;alert;occlusion" },
      ]),
    );
    expect(sent.map((r) => [r.status, r.ack])).toEqual([
      ["accepted", "ACK accepted L1"],
      ["accepted", "ACK accepted L2"],
      ["rejected", "ACK rejected  LINE_NO_ID"],
      ["rejected", undefined],
      ["duplicate", "ACK accepted L1"],
    ]);
    expect(sent[3]!.error).toEqual({ code: "LINE_NO_SENDER", message: "no sender" });
    const listed = (await (await t.fetch("/api/hl7/messages?protocol=test-lines&status=received")).json()) as { messages: { protocol: string; sender: string }[] };
    expect(listed.messages).toHaveLength(2);
    expect(listed.messages[0]).toMatchObject({ protocol: "test-lines", sender: "line:pump-7" });

    await runDurableObjectAlarm(orgObject(env.MESSAGE_ROUTER, t.orgId, "line:pump-7"));
    const alert = (await (await t.fetch(`/api/hl7/messages/${sent[0]!.message_id}`)).json()) as { status: string; executions: string[] };
    expect(alert.status).toBe("processed");
    const execution = (await (await t.fetch(`/api/executions/${alert.executions[0]}`)).json()) as { status: string; outputs: unknown };
    expect(execution).toMatchObject({
      status: "completed",
      outputs: { type: "test.line", attributes: { type: "alert" }, payload: { message_id: sent[0]!.message_id, control_id: "L1", sender: "line:pump-7", raw: "pump-7;L1;alert;occlusion" } },
    });
    // The trigger's attribute filter saw the adapter's attributes: a note runs nothing.
    expect(((await (await t.fetch(`/api/hl7/messages/${sent[1]!.message_id}`)).json()) as { status: string }).status).toBe("unrouted");
  });

  it("fails, and keeps, a stored message whose protocol is no longer registered", async () => {
    const t = await createTenant();
    const [sent] = await results(await post(t, "/api/v1/inbound/test-lines/messages", [{ id: "g1", raw: "gone-1;G1;alert" }]));
    unregister();
    try {
      await runDurableObjectAlarm(orgObject(env.MESSAGE_ROUTER, t.orgId, "line:gone-1"));
      const kept = (await (await t.fetch(`/api/hl7/messages/${sent!.message_id}`)).json()) as { status: string; raw: string; error: { code: string } };
      expect(kept).toMatchObject({ status: "failed", raw: "gone-1;G1;alert", error: { code: "UNKNOWN_PROTOCOL" } });
    } finally {
      unregister = inboundAdapters.register(lineAdapter);
    }
  });
});
