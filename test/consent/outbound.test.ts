// Consent enforcement on outbound nodes: HTTP request and HL7 send (EHR write in
// test/pipelines/ehr-write.test.ts). A denied send is recorded on the node with the deciding
// Consent and provision, emitted on consent_denied, and never reaches the receiver.
import { describe, expect, inject, it } from "vitest";
import { createPipeline, definition, edge, type NodeSpec, run, trigger } from "../support/pipelines";
import { createTenant, type Tenant } from "../support/tenants";

async function runOne(t: Tenant, nodes: NodeSpec[], connections: ReturnType<typeof edge>[], inputs: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  const id = await createPipeline(t, definition([trigger(), ...nodes], connections));
  return (await run(t, id, inputs, extra)).body;
}

async function denyDisclosure(t: Tenant, patient: string) {
  const body = await runOne(t, [{ id: "c", type: "consent.capture", config: {} }], [edge("start", "c", "event")], {
    patient,
    provision: { type: "permit", provisions: [{ type: "deny", actions: ["disclose"] }] },
  });
  return (body.outputs as { c: { consent: { id: string } } }).c.consent.id;
}

let n = 0;
const peerRequests = async (name: string) => ((await (await fetch(`${inject("fhirPeerUrl")}/_control/${name}/requests`)).json()) as { requests: unknown[] }).requests;

describe("outbound consent: HTTP request", () => {
  it("a denied body is not sent; an unrelated patient's is; test mode checks too", async () => {
    const t = await createTenant();
    const consentId = await denyDisclosure(t, "Patient/p1");
    const name = `http${Date.now()}x${n++}`;
    const node = (): NodeSpec => ({ id: "h", type: "output.http_request", config: { url: `${inject("fhirPeerUrl")}/${name}/Observation`, consent: { check: "always" } } });
    const obs = (patient: string) => ({ resourceType: "Observation", status: "final", code: { text: "x" }, subject: { reference: patient } });

    const denied = await runOne(t, [node()], [edge("start", "h", "event")], obs("Patient/p1"));
    expect(denied.status).toBe("completed");
    expect(denied.outputs).toMatchObject({ h: { consent_denied: { patient: "Patient/p1", decision: { decision: "deny", consent: `Consent/${consentId}`, provision: "provision.provision[0]" } } } });
    const dry = await runOne(t, [node()], [edge("start", "h", "event")], obs("Patient/p1"), { test_mode: true });
    expect(dry.node_results.h?.would_write).toBeUndefined();
    expect(await peerRequests(name)).toEqual([]);

    const sent = await runOne(t, [node()], [edge("start", "h", "event")], obs("Patient/p2"));
    expect(sent.outputs).toMatchObject({ h: { response: { status: 201 } } });
    expect(await peerRequests(name)).toHaveLength(1);
  });

  it("the denial is in the execution record with the deciding provision", async () => {
    const t = await createTenant();
    await denyDisclosure(t, "Patient/p1");
    await t.fetch("/api/consent/policy", { method: "PUT", json: { default_policy: "opt-out", enforce_outbound: true } });
    const body = await runOne(t, [{ id: "h", type: "output.http_request", config: { url: `${inject("redirectorUrl")}/hook` } }], [edge("start", "h", "event")], { resourceType: "Patient", id: "p1" });
    const record = (await (await t.fetch(`/api/executions/${body.execution_id}`)).json()) as { nodes: Record<string, { logs?: { level: string; message: string }[]; outputs?: unknown }> };
    expect(JSON.stringify(record.nodes.h)).toContain("provision.provision[0]");
    expect(record.nodes.h?.logs?.some((l) => l.level === "warn" && l.message.includes("consent denied"))).toBe(true);
  });
});

describe("outbound consent: HL7 send", () => {
  const message = (control: string) => [`MSH|^~\\&|CDIS|CDIS|RIS|HOSP|20260316101500||ADT^A08^ADT_A01|${control}|P|2.5.1`, "PID|1||CONSENT-4711^^^GENHOSP^MR||Musterfrau^Erika"].join("\r");
  const received = async () => ((await (await fetch(inject("mllpControlUrl"))).json()) as { received: string[] }).received;

  it("finds the patient by PID-3 and does not send what consent denies", async () => {
    const t = await createTenant();
    const res = await t.fetch(`/fhir/r4/${t.orgId}/Patient`, { method: "POST", json: { resourceType: "Patient", identifier: [{ system: "urn:oid:1.2.3", value: "CONSENT-4711" }] } });
    const patient = ((await res.json()) as { id: string }).id;
    await denyDisclosure(t, `Patient/${patient}`);
    const conn = await t.fetch("/api/connectors", { method: "POST", json: { name: "RIS", type: "mllp", endpoint: `mllp://127.0.0.1:${inject("mllpPort")}` } });
    const connectorId = ((await conn.json()) as { id: string }).id;
    const control = `CONSENT${Date.now()}`;
    const body = await runOne(t, [{ id: "send", type: "hl7.send", config: { connector_id: connectorId, consent: { check: "always" } } }], [edge("start", "send", "event", "message")], { message: message(control) } as never);
    expect(body.status).toBe("completed");
    expect(body.outputs).toMatchObject({ send: { consent_denied: { patient: `Patient/${patient}`, decision: { decision: "deny" } } } });
    expect((await received()).some((m) => m.includes(control))).toBe(false);
    // Without the check it goes out.
    const sent = await runOne(t, [{ id: "send", type: "hl7.send", config: { connector_id: connectorId } }], [edge("start", "send", "event", "message")], { message: message(`${control}B`) } as never);
    expect(sent.outputs).toMatchObject({ send: { output: { ack_code: "AA" } } });
  });
});
