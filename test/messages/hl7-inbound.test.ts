// Inbound HL7 end to end through HTTP: ingestion, the per-sender router Durable
// Object, matching deployed pipelines with an HL7 trigger, the message record.
import { runDurableObjectAlarm } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { orgObject } from "../../src/platform/durable-objects/object-names";
import { orgGate } from "../../src/features/tenancy/limits/gate";
import { createPipeline, definition, edge } from "../support/pipelines";
import { type Tenant, createKey, authedFetch, createTenant } from "../support/tenants";

const ADT_A01 = [
  "MSH|^~\\&|ADTSYS|GENHOSP|CDIS|CDIS|20260315083000+0100||ADT^A01^ADT_A01|MSG00001|P|2.5.1",
  "EVN|A01|20260315083000+0100",
  "PID|1||4711^^^GENHOSP^MR||Musterfrau^Erika^^^^^L||19640812|F|||Heidestr. 17^^Koeln^^51147^DE",
  "PV1|1|I|W1^101^1^GENHOSP||||1234^Doc^Dora|||MED|||||||||V123^^^GENHOSP^VN|||||||||||||||||||||||||20260315083000+0100",
].join("\r");
const withControlId = (raw: string, id: string) => raw.replace("MSG00001", id);
const SENDER = "ADTSYS|GENHOSP";

async function searchFhir(t: Tenant, query: string) {
  const res = await t.fetch(`/fhir/r4/${t.orgId}/${query}`);
  expect(res.status).toBe(200);
  return ((await res.json()) as { entry?: { resource: Record<string, unknown> }[] }).entry?.map((e) => e.resource) ?? [];
}

async function send(t: Tenant, messages: { id: string; raw: string }[]) {
  const res = await t.fetch("/api/v1/hl7/messages", { method: "POST", json: { messages } });
  expect(res.status).toBe(200);
  return ((await res.json()) as { results: { id: string; status: string; message_id: string; ack?: string; error?: { code: string } }[] }).results;
}

/** Runs the sender's router alarm, as the runtime would right after ingestion. */
async function route(t: Tenant, sender = SENDER) {
  const ns = env.MESSAGE_ROUTER;
  await runDurableObjectAlarm(orgObject(ns, t.orgId, sender));
}

async function message(t: Tenant, id: string) {
  return (await (await t.fetch(`/api/hl7/messages/${id}`)).json()) as { status: string; executions: string[]; resources: string[]; error: { code: string; message: string } | null; raw: string; attempts: number; ack: string | null };
}

async function adtPipeline(t: Tenant, trigger: Record<string, string> = { message_type: "ADT" }) {
  return createPipeline(
    t,
    definition([{ id: "in", type: "hl7.inbound_trigger", config: trigger }, { id: "fhir", type: "hl7.to_fhir", config: {} }], [edge("in", "fhir", "message", "message")]),
  );
}

describe("inbound HL7 routing", () => {
  it("stores, acknowledges and routes an ADT^A01 into the matching pipeline", async () => {
    const t = await createTenant();
    await adtPipeline(t);
    const [result] = await send(t, [{ id: "b-1", raw: ADT_A01 }]);
    expect(result).toMatchObject({ status: "accepted" });
    expect(result!.ack).toContain("MSA|AA|MSG00001");
    expect((await message(t, result!.message_id)).status).toBe("received");

    await route(t);
    const stored = await message(t, result!.message_id);
    expect(stored.status).toBe("processed");
    // The run that processed it is its one attempt; the row keeps the ACK the sender got.
    expect(stored.attempts).toBe(1);
    expect(stored.ack).toBe(result!.ack);
    expect(stored.executions).toHaveLength(1);
    const execution = (await (await t.fetch(`/api/executions/${stored.executions[0]}`)).json()) as { status: string; trigger: string };
    expect(execution).toMatchObject({ status: "completed", trigger: "event" });
    const patients = await searchFhir(t, "Patient?identifier=4711");
    expect(patients).toHaveLength(1);
    expect(patients[0]).toMatchObject({ name: [{ family: "Musterfrau", given: ["Erika"] }], gender: "female", birthDate: "1964-08-12" });
    const patientRef = `Patient/${patients[0]!.id}`;
    expect(stored.resources).toContain(patientRef);
    const encounters = await searchFhir(t, `Encounter?subject=${patientRef}`);
    expect(encounters).toHaveLength(1);
    expect(stored.resources).toContain(`Encounter/${encounters[0]!.id}`);
  });

  it("updates rather than duplicates the patient across messages (A01 then A08 with another MSH-10)", async () => {
    const t = await createTenant();
    await adtPipeline(t);
    const a08 = withControlId(ADT_A01, "MSG00002").replace("ADT^A01^ADT_A01", "ADT^A08^ADT_A01").replace("EVN|A01", "EVN|A08").replace("Heidestr. 17", "Am Markt 1");
    await send(t, [{ id: "1", raw: ADT_A01 }, { id: "2", raw: a08 }]);
    await route(t);
    const patients = await searchFhir(t, "Patient?identifier=4711");
    expect(patients).toHaveLength(1);
    expect(patients[0]).toMatchObject({ address: [{ line: ["Am Markt 1"] }] });
    expect(await searchFhir(t, `Encounter?subject=Patient/${patients[0]!.id}`)).toHaveLength(1);
  });

  it("answers a resend with the same MSH-10 as a duplicate and routes it once", async () => {
    const t = await createTenant();
    await adtPipeline(t);
    const [first] = await send(t, [{ id: "b-1", raw: ADT_A01 }]);
    const [again] = await send(t, [{ id: "b-2", raw: ADT_A01 }]);
    expect(again).toMatchObject({ status: "duplicate", message_id: first!.message_id });
    await route(t);
    expect((await (await t.fetch("/api/hl7/messages")).json()) as { total_count: number }).toMatchObject({ total_count: 1 });
    expect((await message(t, first!.message_id)).executions).toHaveLength(1);
  });

  it("routes messages of one sender in arrival order", async () => {
    const t = await createTenant();
    await adtPipeline(t);
    const results = await send(t, ["M1", "M2", "M3"].map((c, i) => ({ id: `o-${i}`, raw: withControlId(ADT_A01, c) })));
    await route(t);
    const executions = await Promise.all(results.map(async (r) => (await message(t, r.message_id)).executions[0]!));
    const started = await Promise.all(executions.map(async (id) => ((await (await t.fetch(`/api/executions/${id}`)).json()) as { started_at: string }).started_at));
    expect([...started].sort()).toEqual(started);
  });

  it("runs a drain's executions in one concurrency slot within the org's limit, recording each execution when it ends", async () => {
    const t = await createTenant({ limits: { concurrentExecutions: 1 } });
    await adtPipeline(t);
    const gate = orgGate(env, t.orgId);
    await gate.acquireSlot("executions", "someone-else", 1, 60_000);
    const results = await send(t, ["S1", "S2"].map((c) => ({ id: c, raw: withControlId(ADT_A01, c) })));
    await route(t);
    // No slot: the line waits (retried with backoff), nothing is processed or recorded.
    const waiting = await message(t, results[0]!.message_id);
    expect(waiting).toMatchObject({ status: "received", error: { code: "RATE_LIMITED" } });
    expect(((await (await t.fetch("/api/executions")).json()) as { total_count: number }).total_count).toBe(0);

    await gate.releaseSlot("executions", "someone-else");
    await route(t);
    for (const r of results) {
      const done = await message(t, r.message_id);
      expect(done.status).toBe("processed");
      const execution = (await (await t.fetch(`/api/executions/${done.executions[0]}`)).json()) as Record<string, unknown>;
      expect(execution).toMatchObject({ status: "completed", trigger: "event" });
      expect(Date.parse(execution.finished_at as string)).toBeGreaterThanOrEqual(Date.parse(execution.started_at as string));
    }
    // Two runs went one after another in the org's single slot, which the drain freed at its end.
    expect(await gate.slotsInUse("executions")).toBe(0);
  });

  it("marks a message no pipeline listens to unrouted, lists it, and routes it on reprocess once a pipeline is deployed", async () => {
    const t = await createTenant();
    await adtPipeline(t, { message_type: "ORU" });
    const [r] = await send(t, [{ id: "b", raw: ADT_A01 }]);
    await route(t);
    expect(await message(t, r!.message_id)).toMatchObject({ status: "unrouted", executions: [] });
    const list = (await (await t.fetch("/api/hl7/messages?status=unrouted")).json()) as { messages: { id: string; status: string }[]; total_count: number };
    expect(list).toMatchObject({ total_count: 1, messages: [{ id: r!.message_id, status: "unrouted" }] });
    expect(((await (await t.fetch("/api/hl7/messages?status=processed")).json()) as { total_count: number }).total_count).toBe(0);

    await adtPipeline(t);
    expect((await t.fetch(`/api/hl7/messages/${r!.message_id}/reprocess`, { method: "POST" })).status).toBe(202);
    await route(t);
    const routed = await message(t, r!.message_id);
    expect(routed).toMatchObject({ status: "processed" });
    expect(routed.executions).toHaveLength(1);
  });

  it("marks a message failed when its pipeline fails, keeps the line moving, and reprocesses on request", async () => {
    const t = await createTenant();
    await adtPipeline(t, {});
    const vxu = ADT_A01.replace("ADT^A01^ADT_A01|MSG00001", "VXU^V04^VXU_V04|VX1");
    const [bad, good] = await send(t, [{ id: "x", raw: vxu }, { id: "y", raw: withControlId(ADT_A01, "OK2") }]);
    await route(t);
    const failed = await message(t, bad!.message_id);
    expect(failed.status).toBe("failed");
    expect(failed.error).toMatchObject({ code: "PIPELINE_FAILED" });
    expect(failed.error?.message).toMatch(/VXU\^V04 is not supported/);
    // The failed run is recorded even though the message's status is not "processed".
    const executionId = /\(execution ([0-9a-f-]+)\)/.exec(failed.error!.message)![1];
    expect(await (await t.fetch(`/api/executions/${executionId}`)).json()).toMatchObject({ status: "failed" });
    expect((await message(t, good!.message_id)).status).toBe("processed");

    const again = await t.fetch(`/api/hl7/messages/${bad!.message_id}/reprocess`, { method: "POST" });
    expect(again.status).toBe(202);
    expect((await message(t, bad!.message_id)).status).toBe("received");
    expect((await t.fetch(`/api/hl7/messages/${bad!.message_id}/reprocess`, { method: "POST" })).status).toBe(409);
  });

  it("rejects what it cannot parse, and lists messages by status", async () => {
    const t = await createTenant();
    const [r] = await send(t, [{ id: "junk", raw: "this is not HL7" }]);
    expect(r).toMatchObject({ status: "rejected", error: { code: "HL7_NO_MSH" } });
    const list = (await (await t.fetch("/api/hl7/messages?status=rejected")).json()) as { messages: { id: string }[]; total_count: number };
    expect(list.total_count).toBe(1);
    expect((await t.fetch(`/api/hl7/messages/${r!.message_id}/reprocess`, { method: "POST" })).status).toBe(409);
  });

  it("searches the list by field path and text, lists the senders seen and counts each route per hour", async () => {
    const t = await createTenant();
    const [r] = await send(t, [{ id: "s1", raw: ADT_A01 }, { id: "s2", raw: withControlId(ADT_A01, "MSG2").replace("4711^", "4712^") }]);
    const list = async (q: string) => (await (await t.fetch(`/api/hl7/messages?${q}`)).json()) as { messages: { id: string; control_id: string }[]; total_count: number };
    expect(await list("field=PID-3&value=4711")).toMatchObject({ total_count: 1, messages: [{ id: r!.message_id }] });
    expect((await list("field=PID-5.2&value=erika&limit=1")).total_count).toBe(2);
    expect((await list("text=4712")).messages.map((m) => m.control_id)).toEqual(["MSG2"]);
    const bad = await t.fetch("/api/hl7/messages?field=PID3&value=1");
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ error: { code: "BAD_REQUEST", status: 400 } });
    expect((await t.fetch("/api/hl7/messages?field=PID-3")).status).toBe(400);
    expect((await t.fetch("/api/hl7/messages/stats?hours=0")).status).toBe(400);
    expect(await (await t.fetch("/api/hl7/messages/senders")).json()).toMatchObject({ senders: [{ protocol: "hl7v2", sender: SENDER, count: 2 }] });
    const stats = (await (await t.fetch("/api/hl7/messages/stats?hours=6")).json()) as { routes: { sender: string; received: number; queued: number; hours: unknown[] }[] };
    expect(stats.routes).toMatchObject([{ sender: SENDER, received: 2, queued: 2 }]);
    expect(stats.routes[0]!.hours).toHaveLength(6);
    const clinician = authedFetch(t.orgId, (await createKey(t.orgId, "clinician")).key);
    expect((await clinician("/api/hl7/messages/stats")).status).toBe(403);
    expect((await clinician("/api/hl7/messages/senders")).status).toBe(403);
  });

  it("validates the batch and needs the ingest permission", async () => {
    const t = await createTenant();
    expect((await t.fetch("/api/v1/hl7/messages", { method: "POST", json: { messages: [] } })).status).toBe(400);
    expect((await t.fetch("/api/v1/hl7/messages", { method: "POST", json: { messages: [{ id: "a" }] } })).status).toBe(400);
    const clinician = authedFetch(t.orgId, (await createKey(t.orgId, "clinician")).key);
    expect((await clinician("/api/v1/hl7/messages", { method: "POST", json: { messages: [{ id: "a", raw: ADT_A01 }] } })).status).toBe(403);
    const service = authedFetch(t.orgId, (await createKey(t.orgId, "service")).key);
    expect((await service("/api/v1/hl7/messages", { method: "POST", json: { messages: [{ id: "a", raw: ADT_A01 }] } })).status).toBe(200);
  });

  it("keeps each organization's messages to itself", async () => {
    const a = await createTenant();
    const b = await createTenant();
    await adtPipeline(a);
    const [r] = await send(a, [{ id: "t", raw: ADT_A01 }]);
    expect((await b.fetch(`/api/hl7/messages/${r!.message_id}`)).status).toBe(404);
    expect((await b.fetch(`/api/hl7/messages/${r!.message_id}/reprocess`, { method: "POST" })).status).toBe(404);
    expect(((await (await b.fetch("/api/hl7/messages")).json()) as { total_count: number }).total_count).toBe(0);
    expect(((await (await b.fetch("/api/hl7/messages?field=PID-3&value=4711")).json()) as { total_count: number }).total_count).toBe(0);
    expect(await (await b.fetch("/api/hl7/messages/senders")).json()).toEqual({ senders: [] });
    expect(((await (await b.fetch("/api/hl7/messages/stats")).json()) as { routes: unknown[] }).routes).toEqual([]);
    // B's identical message is B's own and does not run A's pipeline.
    const [own] = await send(b, [{ id: "t", raw: ADT_A01 }]);
    expect(own!.status).toBe("accepted");
    await route(b);
    expect((await message(b, own!.message_id)).executions).toEqual([]);
  });
});
