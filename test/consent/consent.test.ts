// Consent: the org policy API, the capture and validation nodes against the real store, the
// R4 search parameters on /fhir, and tenancy (another org's Consents never count).
import { describe, expect, it } from "vitest";
import { createPipeline, definition, edge, type NodeSpec, run, trigger } from "../support/pipelines";
import { createKey, authedFetch, createTenant, type Tenant } from "../support/tenants";

async function fhirCreate(t: Tenant, resource: Record<string, unknown>) {
  const res = await t.fetch(`/fhir/r4/${t.orgId}/${resource.resourceType}`, { method: "POST", json: resource });
  expect(res.status).toBe(201);
  return (await res.json()) as { id: string; meta: { versionId: string } };
}

async function runOne(t: Tenant, nodes: NodeSpec[], connections: ReturnType<typeof edge>[], inputs: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  const id = await createPipeline(t, definition([trigger(), ...nodes], connections));
  return (await run(t, id, inputs, extra)).body;
}

const capture = (t: Tenant, form: Record<string, unknown>, operation = "create") =>
  runOne(t, [{ id: "cap", type: "consent.capture", config: { operation } }], [edge("start", "cap", "event")], form);

const validate = (t: Tenant, request: Record<string, unknown>, config: Record<string, unknown> = {}) =>
  runOne(
    t,
    [
      { id: "v", type: "consent.validate", config },
      { id: "ok", type: "data.set_fields", config: { fields: { routed: "'permit'" } } },
      { id: "no", type: "data.set_fields", config: { fields: { routed: "'deny'" } } },
    ],
    [edge("start", "v", "event"), edge("v", "ok", "permit"), edge("v", "no", "deny")],
    request,
  );

describe("consent policy API", () => {
  it("defaults to opt-out, admins change it, others cannot, and each org has its own", async () => {
    const a = await createTenant();
    const b = await createTenant();
    expect(await (await a.fetch("/api/consent/policy")).json()).toMatchObject({ default_policy: "opt-out", enforce_outbound: false, updated_by: null });
    const put = await a.fetch("/api/consent/policy", { method: "PUT", json: { default_policy: "opt-in", enforce_outbound: true } });
    expect(put.status).toBe(200);
    expect(await put.json()).toMatchObject({ default_policy: "opt-in", enforce_outbound: true, updated_by: a.keyId });
    expect(await (await b.fetch("/api/consent/policy")).json()).toMatchObject({ default_policy: "opt-out" });

    const clinician = authedFetch(a.orgId, (await createKey(a.orgId, "clinician")).key);
    expect((await clinician("/api/consent/policy")).status).toBe(200);
    const refused = await clinician("/api/consent/policy", { method: "PUT", json: { default_policy: "opt-out", enforce_outbound: false } });
    expect(refused.status).toBe(403);
    const bad = await a.fetch("/api/consent/policy", { method: "PUT", json: { default_policy: "maybe", enforce_outbound: true } });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ error: { code: expect.any(String), status: 400 } });
    // Another org's key cannot read or change this org's policy.
    const cross = await authedFetch(a.orgId, b.key)("/api/consent/policy", { method: "PUT", json: { default_policy: "opt-out", enforce_outbound: false } });
    expect(cross.status).toBe(403);
    expect(await (await a.fetch("/api/consent/policy")).json()).toMatchObject({ default_policy: "opt-in" });
  });
});

describe("consent capture node", () => {
  it("builds, validates and stores a Consent with nested provisions; searchable by its R4 parameters", async () => {
    const t = await createTenant();
    const patient = await fhirCreate(t, { resourceType: "Patient", name: [{ family: "Doe" }] });
    const body = await capture(t, {
      patient: `Patient/${patient.id}`,
      performers: [`Patient/${patient.id}`],
      organizations: ["Organization/clinic"],
      provision: {
        type: "permit",
        period: { start: "2024-01-01", end: "2030-12-31" },
        actors: [{ reference: "Organization/hie" }],
        actions: ["access", "disclose"],
        purposes: ["TREAT"],
        resource_types: ["Observation"],
        data: [{ reference: "Observation/o1" }],
        provisions: [{ type: "deny", purposes: ["HRESCH"] }],
      },
    });
    expect(body.status).toBe("completed");
    const consent = (body.outputs as { cap: { consent: { id: string; status: string; provision: { provision: unknown[] } } } }).cap.consent;
    expect(consent).toMatchObject({ id: expect.any(String), status: "active", policyRule: { coding: [{ code: "OPTIN" }] }, provision: { type: "permit", actor: [{ role: { coding: [{ code: "IRCP" }] } }] } });

    const search = async (query: string) => {
      const res = await t.fetch(`/fhir/r4/${t.orgId}/Consent?${query}`);
      expect(res.status, query).toBe(200);
      return ((await res.json()) as { entry?: { resource: { id: string } }[] }).entry?.map((e) => e.resource.id) ?? [];
    };
    for (const q of [
      `patient=Patient/${patient.id}`,
      "status=active",
      "category=http://loinc.org|59284-0",
      "period=ge2025-01-01",
      "actor=Organization/hie",
      "purpose=TREAT",
      "data=Observation/o1",
      "action=disclose",
      "scope=patient-privacy",
    ]) {
      expect(await search(q), q).toEqual([consent.id]);
    }
    for (const q of ["status=inactive", "actor=Organization/other", "purpose=ETREAT", "action=correct", "period=ge2031-06-01"]) expect(await search(q), q).toEqual([]);

    // Another org sees none of it.
    const other = await createTenant();
    const res = await other.fetch(`/fhir/r4/${other.orgId}/Consent?patient=Patient/${patient.id}`);
    expect(((await res.json()) as { total?: number; entry?: unknown[] }).entry ?? []).toEqual([]);
  });

  it("a form with errors fails with its issues, nothing stored", async () => {
    const t = await createTenant();
    const body = await capture(t, { patient: "Patient/p1", provision: { type: "maybe" } });
    expect(body).toMatchObject({ status: "failed", error: { code: "INVALID_CONSENT_FORM", node_type: "consent.capture" } });
    const notConsent = await capture(t, { resourceType: "Patient" });
    expect(notConsent.error).toMatchObject({ code: "NOT_A_CONSENT" });
    const res = await t.fetch(`/fhir/r4/${t.orgId}/Consent`);
    expect(((await res.json()) as { entry?: unknown[] }).entry ?? []).toEqual([]);
  });

  it("a Consent the store's validator refuses goes to the invalid port", async () => {
    const t = await createTenant();
    const body = await runOne(t, [{ id: "cap", type: "consent.capture", config: {} }], [edge("start", "cap", "event")], { resourceType: "Consent", status: "not-a-status", patient: { reference: "Patient/p1" } });
    expect(body.status).toBe("completed");
    expect((body.outputs as { cap: { invalid: { outcome: { resourceType: string } } } }).cap.invalid.outcome.resourceType).toBe("OperationOutcome");
  });

  it("revokes and replaces (one transaction); test mode writes nothing", async () => {
    const t = await createTenant();
    const first = (await capture(t, { patient: "Patient/p1", provision: { type: "permit" } })).outputs as { cap: { consent: { id: string } } };
    const id = first.cap.consent.id;

    const dry = await runOne(t, [{ id: "cap", type: "consent.capture", config: { operation: "revoke" } }], [edge("start", "cap", "event")], { consent_id: id }, { test_mode: true });
    expect(dry.node_results.cap?.would_write?.[0]).toMatchObject({ target: `fhir:update Consent/${id}`, payload: { status: "inactive" } });
    expect(await (await t.fetch(`/fhir/r4/${t.orgId}/Consent/${id}`)).json()).toMatchObject({ status: "active" });

    const replaced = await capture(t, { consent_id: `Consent/${id}`, consent: { patient: "Patient/p1", provision: { type: "deny" } } }, "replace");
    expect(replaced.status).toBe("completed");
    const out = replaced.outputs as { cap: { consent: { id: string; status: string }; revoked: { id: string; status: string } } };
    expect(out.cap.revoked).toMatchObject({ id, status: "inactive" });
    expect(out.cap.consent).toMatchObject({ status: "active" });
    const active = (await (await t.fetch(`/fhir/r4/${t.orgId}/Consent?patient=Patient/p1&status=active`)).json()) as { entry: { resource: { id: string } }[] };
    expect(active.entry.map((e) => e.resource.id)).toEqual([out.cap.consent.id]);

    const revoked = await capture(t, { consent_id: out.cap.consent.id }, "revoke");
    expect(revoked.outputs).toMatchObject({ cap: { revoked: { status: "inactive" } } });
    const missing = await capture(t, {}, "revoke");
    expect(missing.error).toMatchObject({ code: "CONSENT_ID_REQUIRED" });
  });
});

describe("consent validation node", () => {
  it("routes to permit or deny with the deciding Consent and provision; the permit branch never runs on a deny", async () => {
    const t = await createTenant();
    const cap = (await capture(t, { patient: "Patient/p1", provision: { type: "permit", provisions: [{ type: "deny", purposes: ["HRESCH"] }] } })).outputs as { cap: { consent: { id: string } } };
    const id = cap.cap.consent.id;

    const permitted = await validate(t, { patient: "Patient/p1", purposes: ["TREAT"] }, { action: "disclose" });
    expect(permitted.node_results.ok?.status).toBe("completed");
    expect(permitted.outputs).toMatchObject({ ok: { output: { routed: "permit" } } });

    const denied = await validate(t, { patient: "Patient/p1", purposes: ["HRESCH"] });
    expect(denied.status).toBe("completed");
    expect(denied.node_results.ok?.status).not.toBe("completed");
    expect(denied.outputs).toMatchObject({ no: { output: { routed: "deny", decision: { decision: "deny", basis: "consent", consent: `Consent/${id}`, provision: "provision.provision[0]" } } } });

    // No consent for p2: the org default decides (opt-out permits, then opt-in denies).
    expect((await validate(t, { patient: "p2" })).outputs).toMatchObject({ ok: { output: { routed: "permit" } } });
    await t.fetch("/api/consent/policy", { method: "PUT", json: { default_policy: "opt-in", enforce_outbound: false } });
    expect((await validate(t, { patient: "p2" })).outputs).toMatchObject({ no: { output: { decision: { basis: "default" } } } });

    const bad = await validate(t, { purposes: ["TREAT"] });
    expect(bad.error).toMatchObject({ code: "INVALID_CONSENT_REQUEST" });
  });

  it("another organization's Consents never count", async () => {
    const a = await createTenant();
    const b = await createTenant();
    await capture(b, { patient: "Patient/shared", provision: { type: "deny" } });
    await a.fetch("/api/consent/policy", { method: "PUT", json: { default_policy: "opt-out", enforce_outbound: false } });
    expect((await validate(a, { patient: "Patient/shared" })).outputs).toMatchObject({ ok: { output: { routed: "permit" } } });
    await capture(a, { patient: "Patient/shared", provision: { type: "permit" } });
    await b.fetch("/api/consent/policy", { method: "PUT", json: { default_policy: "opt-out", enforce_outbound: false } });
    const inB = await validate(b, { patient: "Patient/shared" });
    expect(inB.outputs).toMatchObject({ no: { output: { decision: { decision: "deny", basis: "consent" } } } });
    expect((inB.outputs as { no: { output: { decision: { applied: unknown[] } } } }).no.output.decision.applied).toHaveLength(1);
  });
});
