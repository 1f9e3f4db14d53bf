// Consent enforcement on the FHIR API's reads (consent/read-policy.ts through the store's access
// policy): with enforce_reads on, a patient whose Consent denies access is absent from reads (404),
// searches, $everything and exports; the org default decides without a Consent; break-glass by a
// person's key overrides and is audited with the Consent it overrode; other orgs' Consents never count.
import { describe, expect, it } from "vitest";
import type { Bundle, Resource } from "../../src/features/fhir/port";
import { eventually } from "../support/eventually";
import { authedFetch, createKey, createTenant, type Tenant } from "../support/tenants";

async function create(t: Tenant, resource: Record<string, unknown>): Promise<{ id: string }> {
  const res = await t.fetch(`/fhir/r4/${t.orgId}/${resource.resourceType}`, { method: "POST", json: resource });
  expect(res.status, await res.clone().text()).toBe(201);
  return (await res.json()) as { id: string };
}

const consent = (patientId: string, type: "permit" | "deny", extra: Record<string, unknown> = {}) => ({
  resourceType: "Consent",
  status: "active",
  scope: { coding: [{ system: "http://terminology.hl7.org/CodeSystem/consentscope", code: "patient-privacy" }] },
  category: [{ coding: [{ system: "http://loinc.org", code: "59284-0" }] }],
  patient: { reference: `Patient/${patientId}` },
  dateTime: "2024-01-01",
  policyRule: { coding: [{ system: "http://terminology.hl7.org/CodeSystem/v3-ActCode", code: type === "deny" ? "OPTOUT" : "OPTIN" }] },
  provision: { type, ...extra },
});

const setPolicy = async (t: Tenant, default_policy: "opt-in" | "opt-out", enforce_reads = true) => {
  const res = await t.fetch("/api/consent/policy", { method: "PUT", json: { default_policy, enforce_outbound: false, enforce_reads } });
  expect(res.status).toBe(200);
  expect(await res.json()).toMatchObject({ enforce_reads });
};

async function world(t: Tenant) {
  const denied = await create(t, { resourceType: "Patient", name: [{ family: "Denied" }] });
  const permitted = await create(t, { resourceType: "Patient", name: [{ family: "Permitted" }] });
  const silent = await create(t, { resourceType: "Patient", name: [{ family: "Silent" }] });
  const obs = (p: { id: string }) => create(t, { resourceType: "Observation", status: "final", code: { text: "hr" }, subject: { reference: `Patient/${p.id}` } });
  const observations = { denied: await obs(denied), permitted: await obs(permitted), silent: await obs(silent) };
  const deny = await create(t, consent(denied.id, "deny"));
  // Permits everything but research.
  await create(t, consent(permitted.id, "permit", { provision: [{ type: "deny", purpose: [{ system: "http://terminology.hl7.org/CodeSystem/v3-ActReason", code: "HRESCH" }] }] }));
  return { denied, permitted, silent, observations, deny };
}

const ids = (b: Bundle) => (b.entry ?? []).filter((e) => e.search?.mode !== "outcome").map((e) => `${e.resource!.resourceType}/${e.resource!.id}`).sort();

describe("consent on FHIR reads", () => {
  it("withholds a denying patient's resources from reads, searches and $everything; opt-out shows the rest", async () => {
    const t = await createTenant();
    const w = await world(t);
    const base = `/fhir/r4/${t.orgId}`;
    const status = async (path: string, f = t.fetch) => (await f(`${base}/${path}`)).status;
    const search = async (path: string, init?: RequestInit) => (await (await t.fetch(`${base}/${path}`, init)).json()) as Bundle;

    // Off (the default): everything shows.
    expect(await status(`Patient/${w.denied.id}`)).toBe(200);
    expect(ids(await search("Observation"))).toHaveLength(3);

    await setPolicy(t, "opt-out");
    expect(await status(`Patient/${w.denied.id}`)).toBe(404);
    expect(await status(`Observation/${w.observations.denied.id}`)).toBe(404);
    expect(await status(`Patient/${w.denied.id}/$everything`)).toBe(404);
    expect(await status(`Patient/${w.permitted.id}`)).toBe(200);
    expect(await status(`Patient/${w.silent.id}`)).toBe(200);
    expect(ids(await search("Observation"))).toEqual([`Observation/${w.observations.permitted.id}`, `Observation/${w.observations.silent.id}`].sort());
    expect((await search("Observation?_summary=count")).total).toBe(2);
    expect(ids(await search(`Observation?_include=Observation:subject&patient=Patient/${w.denied.id},Patient/${w.permitted.id}`))).toEqual(
      [`Observation/${w.observations.permitted.id}`, `Patient/${w.permitted.id}`].sort(),
    );
    // The Consents themselves stay visible to manage them.
    expect(await status(`Consent/${w.deny.id}`)).toBe(200);

    // A purpose the permitting Consent excludes (research) withholds that patient too.
    const research = await search("Observation", { headers: { "x-purpose-of-use": "HRESCH" } });
    expect(ids(research)).toEqual([`Observation/${w.observations.silent.id}`]);
    expect((await t.fetch(`${base}/Patient`, { headers: { "x-purpose-of-use": "not a code!" } })).status).toBe(400);

    // Opt-in: a patient without a Consent is withheld as well.
    await setPolicy(t, "opt-in");
    expect(await status(`Patient/${w.silent.id}`)).toBe(404);
    expect(ids(await search("Patient"))).toEqual([`Patient/${w.permitted.id}`]);
    // Switched off again, all is back.
    await setPolicy(t, "opt-in", false);
    expect(ids(await search("Patient"))).toHaveLength(3);
  });

  it("records the deciding Consent in the AuditEvent; break-glass by a clinician overrides and is audited, a service key cannot", async () => {
    const t = await createTenant();
    const w = await world(t);
    await setPolicy(t, "opt-out");
    const base = `/fhir/r4/${t.orgId}`;
    expect((await t.fetch(`${base}/Patient/${w.denied.id}`)).status).toBe(404);

    const clinician = await createKey(t.orgId, "clinician");
    const service = authedFetch(t.orgId, (await createKey(t.orgId, "service")).key);
    const btg = { headers: { "x-purpose-of-use": "BTG" } };
    expect((await authedFetch(t.orgId, clinician.key)(`${base}/Patient/${w.denied.id}`, btg)).status).toBe(200);
    expect((await service(`${base}/Patient/${w.denied.id}`, btg)).status).toBe(404);

    type Audit = Resource & { outcome: string; agent: { who: { identifier: { value: string } } }[]; purposeOfEvent?: { coding: { code: string }[] }[]; entity?: { what?: { reference?: string } }[] };
    const audits = () => t.fetch(`${base}/AuditEvent?entity=Consent/${w.deny.id}&_count=50`).then(async (r) => ((await r.json()) as Bundle).entry?.map((e) => e.resource as Audit) ?? []);
    const events = await eventually(audits, (l) => l.length >= 3);
    // (The Consent's own create is among them too.)
    const withheld = events.find((e) => e.agent[0]?.who.identifier.value === t.keyId && e.outcome === "4");
    expect(withheld).toBeDefined();
    expect(withheld?.entity?.some((e) => e.what?.reference === `Patient/${w.denied.id}`)).toBe(true);
    const glass = events.find((e) => e.agent[0]?.who.identifier.value === clinician.keyId);
    expect(glass?.outcome).toBe("0");
    expect(glass?.purposeOfEvent?.[0]?.coding[0]?.code).toBe("BTG");
  });

  it("filters Bulk Data exports, and another organization's Consents never count", async () => {
    const t = await createTenant();
    const other = await createTenant();
    const w = await world(t);
    // The other org denies "its" Patient/<permitted id>: nothing to do with this org's patient.
    await create(other, consent(w.permitted.id, "deny"));
    await setPolicy(other, "opt-in");
    await setPolicy(t, "opt-out");
    const principal = { orgId: t.orgId, keyId: t.keyId, keyName: "admin key", role: "admin" as const, scopes: [] };
    const page = await t.ctx.fhir(principal).exportPage({ type: "Observation", until: new Date(Date.now() + 60_000).toISOString(), limit: 100 });
    const exported = page.lines.map((l) => (JSON.parse(l) as Resource).id).sort();
    expect(exported).toEqual([w.observations.permitted.id, w.observations.silent.id].sort());
    expect((await t.fetch(`/fhir/r4/${t.orgId}/Patient/${w.permitted.id}`)).status).toBe(200);
  });
});
