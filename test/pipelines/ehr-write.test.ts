// EHR fetch and write-back against an independent FHIR server on loopback: Medplum's FhirRouter
// over its MemoryRepository (test/setup/fhir-peer.ts). Round trip fetch → transform → write-back,
// conditional writes, If-Match conflicts, 429/503 retries, the EHR's OperationOutcome on the
// error port, test mode, and consent enforcement before sending.
import { describe, expect, inject, it } from "vitest";
import { createPipeline, definition, edge, type NodeSpec, run, trigger } from "../support/pipelines";
import { createTenant, type Tenant } from "../support/tenants";

let peers = 0;
/** A fresh EHR (its own repository on the peer) and a bearer FHIR connector to it. */
async function ehr(t: Tenant) {
  const name = `ehr${Date.now()}x${peers++}`;
  const endpoint = `${inject("fhirPeerUrl")}/${name}`;
  const res = await t.fetch("/api/connectors", { method: "POST", json: { name: "EHR", type: "fhir", endpoint, auth: { kind: "bearer" }, credentials: { token: "ehr-token-123" } } });
  expect(res.status).toBe(201);
  const connectorId = ((await res.json()) as { id: string }).id;
  const call = async (path: string, init: RequestInit = {}) => fetch(`${endpoint}/${path}`, { ...init, headers: { "content-type": "application/fhir+json", ...(init.headers ?? {}) } });
  const control = (path: string, body?: unknown) =>
    fetch(`${inject("fhirPeerUrl")}/_control/${name}/${path}`, body === undefined ? {} : { method: "POST", body: JSON.stringify(body) }).then((r) => r.json());
  return { connectorId, endpoint, call, control, requests: async () => ((await control("requests")) as { requests: { method: string; url: string; headers: Record<string, string>; body: unknown }[] }).requests };
}

async function runOne(t: Tenant, nodes: NodeSpec[], connections: ReturnType<typeof edge>[], inputs: unknown, extra: Record<string, unknown> = {}) {
  const id = await createPipeline(t, definition([trigger(), ...nodes], connections));
  return (await run(t, id, inputs as Record<string, unknown>, extra)).body;
}

const write = (t: Tenant, connectorId: string, config: Record<string, unknown>, resource: unknown, extra: Record<string, unknown> = {}) =>
  runOne(t, [{ id: "w", type: "fhir.ehr_write", config: { connector_id: connectorId, ...config } }], [edge("start", "w", "event", "resource")], resource, extra);

type Written = { w: { written: { status: number; outcome: string; id: string; version_id: string; resource: Record<string, unknown>; attempts: number } } };

describe("EHR write-back against Medplum's FHIR server", () => {
  it("round trip: fetch → transform → write back to the EHR's ids, references rewritten", async () => {
    const t = await createTenant();
    const e = await ehr(t);
    const p = (await (await e.call("Patient", { method: "POST", body: JSON.stringify({ resourceType: "Patient", identifier: [{ system: "urn:mrn", value: "42" }], name: [{ family: "Doe" }] }) })).json()) as { id: string };
    const fetchNode = (type: string): NodeSpec => ({ id: `f${type}`, type: "fhir.ehr_fetch", config: { connector_id: e.connectorId, resource_type: type } });
    const fetched = await runOne(t, [fetchNode("Patient")], [edge("start", "fPatient", "event")], {});
    expect(fetched.status).toBe("completed");
    const local = ((fetched.outputs as { fPatient: { resources: { id: string }[] } }).fPatient.resources)[0]!;
    expect(local.id).not.toBe(p.id);

    // Transform locally (a new family name) and write back: PUT to the EHR's id.
    const pipeline = await runOne(
      t,
      [
        { id: "read", type: "fhir.read", config: { resource_type: "Patient", id: local.id } },
        { id: "set", type: "data.set_fields", config: { fields: { name: "[{'family': 'Doe-Smith'}]" } } },
        { id: "w", type: "fhir.ehr_write", config: { connector_id: e.connectorId, operation: "update" } },
      ],
      [edge("start", "read", "event"), edge("read", "set", "resource", "input"), edge("set", "w", "output", "resource")],
      {},
    );
    expect(pipeline.status, JSON.stringify(pipeline.error)).toBe("completed");
    expect((pipeline.outputs as Written).w.written).toMatchObject({ status: 200, outcome: "updated", id: p.id });
    const sent = (await e.requests()).at(-1)!;
    expect(sent).toMatchObject({ method: "PUT", url: `Patient/${p.id}`, headers: { authorization: "Bearer ehr-token-123" } });
    const there = (await (await e.call(`Patient/${p.id}`)).json()) as Record<string, unknown>;
    expect(there).toMatchObject({ id: p.id, name: [{ family: "Doe-Smith" }], identifier: [{ system: "urn:mrn", value: "42" }] });
    expect(JSON.stringify(there)).not.toContain("urn:cdis:connector");

    // A new Observation about our copy of the patient goes to the EHR pointing at the EHR's Patient.
    const obs = { resourceType: "Observation", status: "final", code: { coding: [{ system: "http://loinc.org", code: "8867-4" }] }, subject: { reference: `Patient/${local.id}` }, valueQuantity: { value: 72 } };
    const created = await write(t, e.connectorId, { operation: "create" }, obs);
    expect((created.outputs as Written).w.written).toMatchObject({ status: 201, outcome: "created", resource: { subject: { reference: `Patient/${p.id}` } } });
    const unmapped = await write(t, e.connectorId, { unmapped_references: "fail" }, { ...obs, subject: { reference: "Patient/not-from-the-ehr" } });
    expect(unmapped.error).toMatchObject({ code: "UNMAPPED_REFERENCE" });
    // A malformed reference fails the node too, and nothing reaches the EHR.
    const before = (await e.requests()).length;
    const malformed = await write(t, e.connectorId, { unmapped_references: "fail" }, { ...obs, subject: { reference: "Patient/" } });
    expect(malformed.error).toMatchObject({ code: "INVALID_REFERENCE" });
    expect((await e.requests()).length).toBe(before);
  });

  it("conditional create and update are idempotent", async () => {
    const t = await createTenant();
    const e = await ehr(t);
    const patient = { resourceType: "Patient", identifier: [{ system: "urn:mrn", value: "7" }], gender: "female" };
    const first = await write(t, e.connectorId, { operation: "conditional_create" }, patient);
    const again = await write(t, e.connectorId, { operation: "conditional_create" }, patient);
    expect((first.outputs as Written).w.written.outcome).toBe("created");
    expect((again.outputs as Written).w.written).toMatchObject({ status: 200, outcome: "existing", id: (first.outputs as Written).w.written.id });
    expect((await e.requests()).at(-1)?.headers["if-none-exist"]).toBe("identifier=urn%3Amrn%7C7");

    const upd = await write(t, e.connectorId, { operation: "conditional_update" }, { ...patient, gender: "male" });
    const upd2 = await write(t, e.connectorId, { operation: "conditional_update" }, { ...patient, gender: "male" });
    expect((upd.outputs as Written).w.written.id).toBe((first.outputs as Written).w.written.id);
    expect((upd2.outputs as Written).w.written.id).toBe((first.outputs as Written).w.written.id);
    const all = (await (await e.call("Patient?identifier=urn:mrn|7")).json()) as { entry: unknown[] };
    expect(all.entry).toHaveLength(1);
  });

  it("If-Match: a stale version fails with EHR_VERSION_CONFLICT and the EHR's OperationOutcome on the error port", async () => {
    const t = await createTenant();
    const e = await ehr(t);
    const p = (await (await e.call("Patient", { method: "POST", body: JSON.stringify({ resourceType: "Patient", gender: "female" }) })).json()) as { id: string; meta: { versionId: string } };
    const ours = { resourceType: "Patient", identifier: [{ system: `urn:cdis:connector:${e.connectorId}`, value: p.id }], gender: "male" };
    const ok = await write(t, e.connectorId, { operation: "update", if_match_expression: "ehr_version" }, { ...ours, ehr_version: p.meta.versionId });
    expect((ok.outputs as Written).w.written.outcome).toBe("updated");
    expect((await e.requests()).at(-1)?.headers["if-match"]).toBe(`W/"${p.meta.versionId}"`);

    const stale = await runOne(
      t,
      [
        { id: "w", type: "fhir.ehr_write", config: { connector_id: e.connectorId, operation: "update", if_match_expression: "ehr_version" }, on_error: "route" },
        { id: "handle", type: "data.set_fields", config: { fields: { handled: "true" } } },
      ],
      [edge("start", "w", "event", "resource"), edge("w", "handle", "error", "input")],
      { ...ours, ehr_version: p.meta.versionId },
    );
    expect(stale.status).toBe("completed");
    const routed = (stale.outputs as { handle: { output: { code: string; details: { status: number; outcome: { resourceType: string } }; handled: boolean } } }).handle.output;
    expect(routed).toMatchObject({ code: "EHR_VERSION_CONFLICT", handled: true, details: { status: 412, outcome: { resourceType: "OperationOutcome" } } });
  });

  it("retries 429 and 503 after Retry-After, gives up past max_retries or max_retry_wait_ms", async () => {
    const t = await createTenant();
    const e = await ehr(t);
    await e.control("throttle", { status: 429, count: 1, retryAfter: "0" });
    await e.control("throttle", { status: 503, count: 1, retryAfter: "1" });
    const started = Date.now();
    const ok = await write(t, e.connectorId, {}, { resourceType: "Patient", gender: "other" });
    expect((ok.outputs as Written).w.written).toMatchObject({ status: 201, attempts: 3 });
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);

    await e.control("throttle", { status: 503, count: 3, retryAfter: "0" });
    const exhausted = await write(t, e.connectorId, { max_retries: 2 }, { resourceType: "Patient" });
    expect(exhausted.error).toMatchObject({ code: "EHR_THROTTLED" });
    await e.control("throttle", { status: 429, count: 1, retryAfter: "120" });
    const tooLong = await write(t, e.connectorId, { max_retry_wait_ms: 1000 }, { resourceType: "Patient" });
    expect(tooLong.error).toMatchObject({ code: "EHR_THROTTLED" });
  });

  it("transaction bundles, and a refused resource's OperationOutcome", async () => {
    const t = await createTenant();
    const e = await ehr(t);
    const bundle = {
      resourceType: "Bundle",
      type: "transaction",
      entry: [
        { fullUrl: "urn:uuid:0d2c1e4c-44c1-4b6e-9b2a-1a1a1a1a1a1a", resource: { resourceType: "Patient", gender: "female" }, request: { method: "POST", url: "Patient" } },
        { resource: { resourceType: "Observation", status: "final", code: { text: "x" }, subject: { reference: "urn:uuid:0d2c1e4c-44c1-4b6e-9b2a-1a1a1a1a1a1a" } }, request: { method: "POST", url: "Observation" } },
      ],
    };
    const tx = await write(t, e.connectorId, { operation: "transaction" }, bundle);
    expect(tx.status, JSON.stringify(tx.error)).toBe("completed");
    const response = (tx.outputs as Written).w.written.resource as { type: string; entry: { response: { status: string } }[] };
    expect(response.type).toBe("transaction-response");
    expect(response.entry.map((x) => x.response.status)).toEqual(["201", "201"]);
    const obs = (await (await e.call("Observation")).json()) as { entry: { resource: { subject: { reference: string } } }[] };
    expect(obs.entry[0]?.resource.subject.reference).toMatch(/^Patient\//);

    // Two EHR patients share an identifier: the conditional update is refused (412, multiple matches).
    const twin = JSON.stringify({ resourceType: "Patient", identifier: [{ system: "urn:mrn", value: "twin" }] });
    await e.call("Patient", { method: "POST", body: twin });
    await e.call("Patient", { method: "POST", body: twin });
    const refused = await write(t, e.connectorId, { operation: "conditional_update" }, JSON.parse(twin));
    expect(refused.error).toMatchObject({ code: "EHR_WRITE_FAILED", details: { status: 412, outcome: { resourceType: "OperationOutcome", issue: [{ severity: "error" }] } } });
  });

  it("test mode sends nothing and reports the exact request in would_write", async () => {
    const t = await createTenant();
    const e = await ehr(t);
    const body = await write(t, e.connectorId, { operation: "conditional_create" }, { resourceType: "Patient", identifier: [{ system: "urn:mrn", value: "9" }] }, { test_mode: true });
    expect(body.node_results.w?.would_write?.[0]).toMatchObject({
      target: `ehr:${e.connectorId} POST Patient`,
      payload: { method: "POST", url: `${e.endpoint}/Patient`, headers: { "if-none-exist": "identifier=urn%3Amrn%7C9" }, body: { resourceType: "Patient" } },
    });
    expect(await e.requests()).toEqual([]);
  });

  it("consent: a denied send goes to consent_denied with the deciding provision and reaches no EHR", async () => {
    const t = await createTenant();
    const e = await ehr(t);
    const cap = await runOne(t, [{ id: "c", type: "consent.capture", config: {} }], [edge("start", "c", "event")], {
      patient: "Patient/p9",
      provision: { type: "permit", provisions: [{ type: "deny", actions: ["disclose"], actors: [{ reference: "Organization/ehr" }] }] },
    });
    const consentId = (cap.outputs as { c: { consent: { id: string } } }).c.consent.id;
    const obs = { resourceType: "Observation", status: "final", code: { text: "x" }, subject: { reference: "Patient/p9" } };
    const consent = { check: "always", actors: ["Organization/ehr"] };
    const denied = await write(t, e.connectorId, { consent }, obs);
    expect(denied.status).toBe("completed");
    expect(denied.outputs).toMatchObject({ w: { consent_denied: { patient: "Patient/p9", target: `ehr:${e.connectorId}`, decision: { decision: "deny", consent: `Consent/${consentId}`, provision: "provision.provision[0]" } } } });
    expect(await e.requests()).toEqual([]);
    // Another recipient is permitted; with the org enforcing, "inherit" checks too.
    expect((await write(t, e.connectorId, { consent: { check: "always", actors: ["Organization/other"] } }, obs)).outputs).toMatchObject({ w: { written: { status: 201 } } });
    await t.fetch("/api/consent/policy", { method: "PUT", json: { default_policy: "opt-out", enforce_outbound: true } });
    expect((await write(t, e.connectorId, { consent: { actors: ["Organization/ehr"] } }, obs)).outputs).toMatchObject({ w: { consent_denied: {} } });
    expect((await write(t, e.connectorId, { consent: { check: "never", actors: ["Organization/ehr"] } }, obs)).outputs).toMatchObject({ w: { written: {} } });
  });
});
