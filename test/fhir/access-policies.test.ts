// Access policies (features/access-policies/) end to end: policies managed through
// /api/v1/access-policies (validation, permissions, paging, assignment, deletion, other
// organizations), and enforced on every path of the FHIR store for a credential assigned one: the
// types it names, read-only rules, criteria, patient and Group compartments (pushed into the query:
// pages full, totals right), hidden fields (never shown, never wiped), across read, vread, search
// with includes and chains, history, $everything, batches, transactions and export pages; a key, a
// user and a client application's token alike. A key without a policy is unaffected.
import { describe, expect, it } from "vitest";
import { smartScopePolicy } from "../../src/features/fhir";
import type { Bundle, Resource } from "../../src/features/fhir/port";
import { exportJWK, generateKeyPair, SignJWT } from "jose";
import { userPolicyAssignments, userPrincipal } from "../../src/features/identity";
import { UserStore } from "../../src/features/identity/users";
import { buildApp } from "../../src/main/app";
import type { Principal } from "../../src/platform/principal";
import { appFetch } from "../support/app-fetch";
import { type Tenant, authedFetch, call, createKey, createTenant } from "../support/tenants";
import { post } from "./support";

type Fetch = Tenant["fetch"];
const base = (t: Pick<Tenant, "orgId">) => `/fhir/r4/${t.orgId}`;
const VITALS = { coding: [{ system: "http://terminology.hl7.org/CodeSystem/observation-category", code: "vital-signs" }] };
const LAB = { coding: [{ system: "http://terminology.hl7.org/CodeSystem/observation-category", code: "laboratory" }] };
const observation = (patient: string, category = VITALS, extra: Record<string, unknown> = {}): Resource => ({
  resourceType: "Observation",
  status: "final",
  category: [category],
  code: { text: "hr" },
  subject: { reference: `Patient/${patient}` },
  ...extra,
});

async function createPolicy(t: Tenant, body: unknown): Promise<{ id: string }> {
  const res = await t.fetch("/api/v1/access-policies", { method: "POST", json: body });
  expect(res.status, await res.clone().text()).toBe(201);
  return (await res.json()) as { id: string };
}

/** A new key of `role` acting under the policy (assigned through the API), and its fetch. */
async function keyUnder(t: Tenant, policyId: string, role: "clinician" | "admin" | "service" = "clinician") {
  const { key, keyId } = await createKey(t.orgId, role);
  const assigned = await t.fetch(`/api/v1/access-policies/${policyId}/assignments/api-keys/${keyId}`, { method: "PUT" });
  expect(assigned.status).toBe(200);
  return { fetch: authedFetch(t.orgId, key), keyId };
}

/** Resources created in one transaction (ids in order). */
async function createAll(t: Tenant, resources: Resource[]): Promise<string[]> {
  const res = await t.fetch(base(t), { method: "POST", json: { resourceType: "Bundle", type: "transaction", entry: resources.map((resource) => ({ resource, request: { method: "POST", url: resource.resourceType } })) } });
  expect(res.status).toBe(200);
  const bundle = (await res.json()) as Bundle;
  return bundle.entry!.map((e) => e.response!.location!.split("/")[1]!);
}

async function bundle(fetch: Fetch, path: string): Promise<Bundle> {
  const res = await fetch(path);
  expect(res.status, `${path}: ${await res.clone().text()}`).toBe(200);
  return (await res.json()) as Bundle;
}
const idsOf = (b: Bundle, mode?: "match" | "include") => (b.entry ?? []).filter((e) => e.resource && (!mode || e.search?.mode === mode)).map((e) => `${e.resource!.resourceType}/${e.resource!.id}`);
const next = (b: Bundle) => b.link?.find((l) => l.relation === "next")?.url.replace(/^https?:\/\/[^/]+/, "");
const diagnostics = async (res: Response) => ((await res.json()) as { issue?: { diagnostics: string }[]; error?: { message: string } }).issue?.[0]?.diagnostics ?? "";

describe("access policies: management API", () => {
  it("validates rules (422 naming each problem), lists with paging, replaces, and refuses deleting a policy in use", async () => {
    const t = await createTenant();
    const bad = await t.fetch("/api/v1/access-policies", {
      method: "POST",
      json: { name: "bad", resources: [{ resource_type: "Observaton" }, { resource_type: "Observation", criteria: "Observation?colour=red" }, { resource_type: "Patient", hidden_fields: ["Patient.telefon"] }] },
    });
    expect(bad.status).toBe(422);
    const error = ((await bad.json()) as { error: { message: string; details: { path: string; message: string }[] } }).error;
    expect(error.details.map((d) => d.path)).toEqual(["resources[0].resource_type", "resources[1].criteria", "resources[2].hidden_fields[0]"]);
    expect(error.message).toMatch(/Unknown search parameter colour for Observation/);
    // Shape errors are zod's 400: an unknown field, no rules.
    expect((await t.fetch("/api/v1/access-policies", { method: "POST", json: { name: "x", resources: [{ resource_type: "Patient", hidden: [] }] } })).status).toBe(400);
    expect((await t.fetch("/api/v1/access-policies", { method: "POST", json: { name: "x", resources: [] } })).status).toBe(400);

    const ids: string[] = [];
    for (const name of ["one", "two", "three"]) ids.push((await createPolicy(t, { name, description: `policy ${name}`, resources: [{ resource_type: "Patient", readonly: true }] })).id);
    const page = (await (await t.fetch("/api/v1/access-policies?limit=2&offset=0")).json()) as { access_policies: { id: string; name: string }[]; total_count: number };
    expect(page.total_count).toBe(3);
    expect(page.access_policies.map((p) => p.name)).toHaveLength(2);
    const rest = (await (await t.fetch("/api/v1/access-policies?limit=2&offset=2")).json()) as { access_policies: { id: string }[] };
    expect(rest.access_policies).toHaveLength(1);

    const replaced = await t.fetch(`/api/v1/access-policies/${ids[0]}`, { method: "PUT", json: { name: "one, vitals", resources: [{ resource_type: "Observation", criteria: "Observation?category=vital-signs", hidden_fields: ["note"] }] } });
    expect(replaced.status).toBe(200);
    expect(await replaced.json()).toMatchObject({ name: "one, vitals", description: null, resources: [{ resource_type: "Observation", criteria: "Observation?category=vital-signs", hidden_fields: ["note"] }] });
    expect((await t.fetch(`/api/v1/access-policies/${ids[0]}`, { method: "PUT", json: { name: "x", resources: [{ resource_type: "*", criteria: "Observation?status=final" }] } })).status).toBe(422);

    // Assigned: listed on the policy, shown on the key, and the policy cannot go until unassigned.
    const { keyId } = await keyUnder(t, ids[0]!);
    const detail = (await (await t.fetch(`/api/v1/access-policies/${ids[0]}`)).json()) as { assigned_to: unknown[] };
    expect(detail.assigned_to).toEqual([{ kind: "api-keys", id: keyId, name: "clinician key" }]);
    expect(((await (await t.fetch(`/api/api-keys/${keyId}`)).json()) as { access_policy_id: string }).access_policy_id).toBe(ids[0]);
    const inUse = await t.fetch(`/api/v1/access-policies/${ids[0]}`, { method: "DELETE" });
    expect(inUse.status).toBe(409);
    expect(((await inUse.json()) as { error: { code: string } }).error.code).toBe("ACCESS_POLICY_IN_USE");
    // Assigning another policy replaces it; unassigning one the key does not hold is 404.
    expect((await t.fetch(`/api/v1/access-policies/${ids[1]}/assignments/api-keys/${keyId}`, { method: "PUT" })).status).toBe(200);
    expect((await t.fetch(`/api/v1/access-policies/${ids[0]}/assignments/api-keys/${keyId}`, { method: "DELETE" })).status).toBe(404);
    const unassigned = await t.fetch(`/api/v1/access-policies/${ids[1]}/assignments/api-keys/${keyId}`, { method: "DELETE" });
    expect(await unassigned.json()).toMatchObject({ access_policy_id: null, kind: "api-keys", id: keyId });
    expect((await t.fetch(`/api/v1/access-policies/${ids[0]}`, { method: "DELETE" })).status).toBe(200);
    expect((await t.fetch(`/api/v1/access-policies/${ids[0]}`)).status).toBe(404);
    expect((await t.fetch(`/api/v1/access-policies/${ids[1]}/assignments/api-keys/not-a-key`, { method: "PUT" })).status).toBe(404);
  });

  it("is for admins only (policies:manage), and another organization's policies are unknown", async () => {
    const a = await createTenant();
    const b = await createTenant();
    const policy = await createPolicy(a, { name: "A's", resources: [{ resource_type: "Patient" }] });
    const clinician = authedFetch(a.orgId, (await createKey(a.orgId, "clinician")).key);
    const listed = await clinician("/api/v1/access-policies");
    expect(listed.status).toBe(403);
    expect(JSON.stringify(await listed.json())).toContain("policies:manage");
    expect((await clinician("/api/v1/access-policies", { method: "POST", json: { name: "x", resources: [{ resource_type: "Patient" }] } })).status).toBe(403);
    const aKey = await createKey(a.orgId, "clinician");
    const bKey = await createKey(b.orgId, "clinician");
    // B sees, changes, assigns nothing of A's, and cannot put A's key under its own policy.
    expect((await b.fetch(`/api/v1/access-policies/${policy.id}`)).status).toBe(404);
    expect((await b.fetch(`/api/v1/access-policies/${policy.id}`, { method: "DELETE" })).status).toBe(404);
    expect((await b.fetch(`/api/v1/access-policies/${policy.id}/assignments/api-keys/${bKey.keyId}`, { method: "PUT" })).status).toBe(404);
    const bPolicy = await createPolicy(b, { name: "B's", resources: [{ resource_type: "Patient" }] });
    expect((await b.fetch(`/api/v1/access-policies/${bPolicy.id}/assignments/api-keys/${aKey.keyId}`, { method: "PUT" })).status).toBe(404);
    expect(((await (await b.fetch("/api/v1/access-policies")).json()) as { total_count: number }).total_count).toBe(1);
  });
});

describe("access policies: enforcement", () => {
  it("types not named, read-only rules and criteria, on reads, searches, history, writes, batches and transactions", async () => {
    const t = await createTenant();
    const patient = await post(t, { resourceType: "Patient", name: [{ family: "Doe" }] });
    const [vital, lab, encounter] = await createAll(t, [observation(patient.id), observation(patient.id, LAB), { resourceType: "Encounter", status: "finished", class: { code: "AMB" }, subject: { reference: `Patient/${patient.id}` } }]);
    const policy = await createPolicy(t, {
      name: "vitals reader",
      resources: [
        { resource_type: "Patient", readonly: true },
        { resource_type: "Observation", criteria: "Observation?category=vital-signs" },
      ],
    });
    const { fetch } = await keyUnder(t, policy.id);
    const b = base(t);

    expect((await fetch(`${b}/Patient/${patient.id}`)).status).toBe(200);
    expect((await fetch(`${b}/Observation/${vital}`)).status).toBe(200);
    expect((await fetch(`${b}/Observation/${vital}/_history/1`)).status).toBe(200);
    // Outside the rules: absent, as another organization's resource is.
    for (const path of [`Observation/${lab}`, `Observation/${lab}/_history/1`, `Encounter/${encounter}`]) expect((await fetch(`${b}/${path}`)).status, path).toBe(404);
    const searched = await bundle(fetch, `${b}/Observation?_total=accurate`);
    expect(idsOf(searched)).toEqual([`Observation/${vital}`]);
    expect(searched.total).toBe(1);
    expect(idsOf(await bundle(fetch, `${b}/Observation/${lab}/_history`))).toEqual([]);
    // Included resources are held to the rules as matches are: the lab result is not revincluded, nor the Encounter included.
    expect(idsOf(await bundle(fetch, `${b}/Patient?_revinclude=Observation:subject&_revinclude=Encounter:subject`), "include")).toEqual([`Observation/${vital}`]);
    expect(idsOf(await bundle(fetch, `${b}/Observation?_include=Observation:subject&_id=${vital},${lab}`))).toEqual([`Observation/${vital}`, `Patient/${patient.id}`]);
    const encounters = await fetch(`${b}/Encounter`);
    expect(encounters.status).toBe(403);
    expect(await diagnostics(encounters)).toMatch(/the access policy "vitals reader" grants no access to Encounter/);

    // Writes: none of a type not named, none through a read-only rule, none outside the criteria.
    const refused = [
      await fetch(`${b}/Encounter`, { method: "POST", json: { resourceType: "Encounter", status: "planned", class: { code: "AMB" } } }),
      await fetch(`${b}/Patient/${patient.id}`, { method: "PUT", json: { ...patient, active: true } }),
      await fetch(`${b}/Observation`, { method: "POST", json: observation(patient.id, LAB) }),
      await fetch(`${b}/Observation/${vital}`, { method: "PUT", json: { ...observation(patient.id, LAB), id: vital } }),
      await fetch(`${b}/Observation/${vital}`, { method: "DELETE" }),
    ];
    expect(refused.slice(0, 4).map((r) => r.status)).toEqual([403, 403, 403, 403]);
    expect(await diagnostics(refused[1]!)).toMatch(/grants Patient read-only/);
    expect(await diagnostics(refused[2]!)).toMatch(/is outside what the access policy "vitals reader" grants/);
    // A delete within the criteria is a write the rule allows.
    expect(refused[4]!.status).toBe(204);
    expect((await fetch(`${b}/Observation`, { method: "POST", json: observation(patient.id) })).status).toBe(201);

    // A batch answers each entry as its own request would; a transaction fails whole.
    const batched = await fetch(b, {
      method: "POST",
      json: {
        resourceType: "Bundle",
        type: "batch",
        entry: [
          { request: { method: "GET", url: `Observation/${lab}` } },
          { request: { method: "GET", url: `Patient/${patient.id}` } },
          { resource: { resourceType: "Encounter", status: "planned", class: { code: "AMB" } }, request: { method: "POST", url: "Encounter" } },
          { resource: observation(patient.id), request: { method: "POST", url: "Observation" } },
        ],
      },
    });
    expect(batched.status).toBe(200);
    const batch = (await batched.json()) as Bundle;
    expect(batch.entry!.map((e) => e.response!.status.slice(0, 3))).toEqual(["404", "200", "403", "201"]);
    const transaction = await fetch(b, { method: "POST", json: { resourceType: "Bundle", type: "transaction", entry: [{ resource: observation(patient.id), request: { method: "POST", url: "Observation" } }, { resource: observation(patient.id, LAB), request: { method: "POST", url: "Observation" } }] } });
    expect(transaction.status).toBe(403);

    // The organization's admin key, without a policy, sees everything as before.
    expect((await t.fetch(`${b}/Observation/${lab}`)).status).toBe(200);
    expect((await bundle(t.fetch, `${b}/Observation?_total=accurate`)).total).toBe(3);
  });

  it("a patient's compartment is pushed into the query: 30 Observations, 10 visible, _count=5 gives two full pages and a total of 10", async () => {
    const t = await createTenant();
    const [p1, p2, p3] = await createAll(t, [
      { resourceType: "Patient", name: [{ family: "One" }] },
      { resourceType: "Patient", name: [{ family: "Two" }] },
      { resourceType: "Patient", name: [{ family: "Three" }] },
    ]);
    const observations = [p1, p2, p3].flatMap((p) => Array.from({ length: 10 }, (_, i) => observation(p!, VITALS, { effectiveDateTime: `2024-01-${String(i + 1).padStart(2, "0")}T00:00:00Z` })));
    // Interleaved, so the visible ten are spread over the id and update orders.
    await createAll(t, observations.map((_, i) => observations[(i % 3) * 10 + Math.floor(i / 3)]!));
    const policy = await createPolicy(t, { name: "p1 only", resources: [{ resource_type: "*", compartment: { patient: `Patient/${p1}` } }] });
    const { fetch } = await keyUnder(t, policy.id);
    const b = base(t);

    for (const sort of ["", "&_sort=_lastUpdated", "&_sort=-date"]) {
      const first = await bundle(fetch, `${b}/Observation?_count=5&_total=accurate${sort}`);
      expect(idsOf(first), sort).toHaveLength(5);
      expect(first.total, sort).toBe(10);
      const second = await bundle(fetch, next(first)!);
      expect(idsOf(second), sort).toHaveLength(5);
      expect(next(second), sort).toBeUndefined();
      const all = [...first.entry!, ...second.entry!].map((e) => (e.resource as unknown as { subject: { reference: string } }).subject.reference);
      expect(new Set(all), sort).toEqual(new Set([`Patient/${p1}`]));
    }
    expect((await bundle(fetch, `${b}/Observation?_summary=count`)).total).toBe(10);
    // Every type: still the compartment only (the Patient is in its own).
    expect((await bundle(fetch, `${b}/Patient?_total=accurate`)).total).toBe(1);
    expect((await bundle(fetch, `${b}?_type=Observation,Patient&_count=100`)).entry).toHaveLength(11);
    // Includes, revincludes and chains reach no one else's resources.
    const included = await bundle(fetch, `${b}/Observation?_count=3&_include=Observation:subject`);
    expect(idsOf(included, "include")).toEqual([`Patient/${p1}`]);
    const revincluded = await bundle(fetch, `${b}/Patient?_revinclude=Observation:subject&_count=100`);
    expect(idsOf(revincluded, "include")).toHaveLength(10);
    expect((await bundle(fetch, `${b}/Observation?subject.name=One&_total=accurate`)).total).toBe(10);
    expect((await bundle(fetch, `${b}/Observation?subject.name=Two&_total=accurate`)).total).toBe(0);
    expect((await bundle(fetch, `${b}/Patient?_has:Observation:subject:status=final&_total=accurate`)).total).toBe(1);
    // $everything: the patient's record, another patient's refused.
    expect((await bundle(fetch, `${b}/Patient/${p1}/$everything`)).total).toBe(11);
    expect((await fetch(`${b}/Patient/${p2}/$everything`)).status).toBe(404);
    expect((await fetch(`${b}/Patient/${p2}`)).status).toBe(404);
    // A write outside the compartment is refused.
    expect((await fetch(`${b}/Observation`, { method: "POST", json: observation(p2!) })).status).toBe(403);
  });

  it("a Group's members: their compartments, read per request, so a change of membership applies at once", async () => {
    const t = await createTenant();
    const [p1, p2, p3] = await createAll(t, ["One", "Two", "Three"].map((family) => ({ resourceType: "Patient", name: [{ family }] })));
    await createAll(t, [p1, p2, p3].flatMap((p) => [observation(p!), observation(p!)]));
    const group = await post(t, { resourceType: "Group", type: "person", actual: true, member: [{ entity: { reference: `Patient/${p1}` } }, { entity: { reference: `Patient/${p2}` } }] });
    const policy = await createPolicy(t, {
      name: "cohort",
      resources: [
        { resource_type: "Patient", compartment: { group: `Group/${group.id}` } },
        { resource_type: "Observation", readonly: true, compartment: { group: `Group/${group.id}` } },
      ],
    });
    const { fetch } = await keyUnder(t, policy.id);
    const b = base(t);
    const first = await bundle(fetch, `${b}/Observation?_count=2&_total=accurate`);
    expect(first.total).toBe(4);
    expect(idsOf(first)).toHaveLength(2);
    expect(idsOf(await bundle(fetch, next(first)!))).toHaveLength(2);
    expect((await fetch(`${b}/Patient/${p3}`)).status).toBe(404);
    expect((await fetch(`${b}/Observation`, { method: "POST", json: observation(p1!) })).status).toBe(403);
    // The Group itself is not a type the policy names.
    expect((await fetch(`${b}/Group/${group.id}`)).status).toBe(404);
    // p2 leaves the cohort: the next request no longer reaches them.
    const res = await t.fetch(`${b}/Group/${group.id}`, { method: "PUT", json: { ...group, member: [{ entity: { reference: `Patient/${p1}` } }, { entity: { reference: `Patient/${p2}` }, inactive: true }] } });
    expect(res.status).toBe(200);
    expect((await bundle(fetch, `${b}/Observation?_total=accurate`)).total).toBe(2);
    expect((await fetch(`${b}/Patient/${p2}`)).status).toBe(404);
  });

  it("hidden meta elements: no search or sort by _tag, _security or _source reveals them, and reads leave them out", async () => {
    const t = await createTenant();
    await post(t, { resourceType: "Patient", meta: { tag: [{ system: "urn:t", code: "vip" }], security: [{ system: "urn:s", code: "R" }], source: "urn:src:ehr" } });
    const policy = await createPolicy(t, { name: "no meta", resources: [{ resource_type: "Patient", hidden_fields: ["Patient.meta.tag", "Patient.meta.security", "Patient.meta.source"] }] });
    const { fetch } = await keyUnder(t, policy.id);
    const b = base(t);
    for (const [query, element] of [["_tag=urn:t|vip", "meta.tag"], ["_security=urn:s|R", "meta.security"], ["_source=urn:src:ehr", "meta.source"], ["_sort=_tag", "meta.tag"]] as const) {
      const res = await fetch(`${b}/Patient?${query}`);
      expect(res.status, query).toBe(403);
      expect(await diagnostics(res)).toContain(`hides Patient.${element}`);
    }
    const shown = JSON.stringify(await bundle(fetch, `${b}/Patient`));
    expect(shown).not.toMatch(/vip|urn:s|urn:src:ehr/);
  });

  it("hidden fields never leak (read, vread, search, _include, history, $everything, export pages, write answers) and are never wiped", async () => {
    const t = await createTenant();
    const patient = await post(t, { resourceType: "Patient", name: [{ family: "Doe" }], telecom: [{ system: "phone", value: "555-0100" }], birthDate: "1970-01-01", identifier: [{ value: "MRN1" }] });
    const obs = await post(t, observation(patient.id, VITALS, { note: [{ text: "private note" }] }));
    const policy = await createPolicy(t, {
      name: "no contact details",
      resources: [
        { resource_type: "Patient", hidden_fields: ["Patient.telecom"], readonly_fields: ["identifier"] },
        { resource_type: "Observation", hidden_fields: ["Observation.note"] },
      ],
    });
    const { fetch, keyId } = await keyUnder(t, policy.id);
    const b = base(t);
    const leaks = (value: unknown) => JSON.stringify(value).includes("555-0100") || JSON.stringify(value).includes("private note");

    const shown: unknown[] = [
      await (await fetch(`${b}/Patient/${patient.id}`)).json(),
      await (await fetch(`${b}/Patient/${patient.id}/_history/1`)).json(),
      await bundle(fetch, `${b}/Patient`),
      await bundle(fetch, `${b}/Observation?_include=Observation:subject`),
      await bundle(fetch, `${b}/Patient?_revinclude=Observation:subject`),
      await bundle(fetch, `${b}/Patient/${patient.id}/_history`),
      await bundle(fetch, `${b}/Observation/_history`),
      await bundle(fetch, `${b}/Patient/${patient.id}/$everything`),
    ];
    expect(shown.map(leaks)).toEqual(shown.map(() => false));
    expect(JSON.stringify(shown[0])).toContain("1970-01-01");
    // Searching, sorting or including by a hidden field would tell it: refused, naming it.
    const byPhone = await fetch(`${b}/Patient?phone=555-0100`);
    expect(byPhone.status).toBe(403);
    expect(await diagnostics(byPhone)).toMatch(/hides Patient.telecom, which searching, sorting or including by phone would reveal/);
    expect((await fetch(`${b}/Observation?subject.telecom=555-0100`)).status).toBe(403);
    // Export pages, as the key that kicked the export off reads them.
    const principal: Principal = { orgId: t.orgId, keyId, keyName: "clinician key", role: "clinician", scopes: [], accessPolicyId: policy.id };
    const store = t.ctx.fhir(principal, { extensions: t.ctx.fhirExtensions });
    const page = await store.exportPage({ type: "Patient", until: new Date(Date.now() + 1000).toISOString(), limit: 10 });
    expect(page.lines).toHaveLength(1);
    expect(leaks(page.lines)).toBe(false);
    expect((await store.exportPage({ type: "Observation", until: new Date(Date.now() + 1000).toISOString(), limit: 10 })).lines.some((l) => l.includes("private note"))).toBe(false);

    // Updates with what the key sees (telecom absent, identifier changed): telecom kept, identifier kept, the rest changed.
    const seen = (await (await fetch(`${b}/Patient/${patient.id}`)).json()) as Resource;
    const updated = await fetch(`${b}/Patient/${patient.id}`, { method: "PUT", json: { ...seen, name: [{ family: "Roe" }], identifier: [{ value: "CHANGED" }] } });
    expect(updated.status).toBe(200);
    expect(leaks(await updated.json())).toBe(false);
    // Sending a value for the hidden field changes nothing either.
    expect((await fetch(`${b}/Patient/${patient.id}`, { method: "PUT", json: { ...seen, name: [{ family: "Roe" }], telecom: [{ system: "phone", value: "999" }] } })).status).toBe(200);
    // A patch sees what the key sees: a test of the hidden field finds nothing; a replace of the rest applies.
    const patchJson = (ops: unknown) => fetch(`${b}/Patient/${patient.id}`, { method: "PATCH", headers: { "content-type": "application/json-patch+json" }, body: JSON.stringify(ops) });
    expect((await patchJson([{ op: "test", path: "/telecom/0/value", value: "555-0100" }])).status).toBe(422);
    expect((await patchJson([{ op: "replace", path: "/birthDate", value: "1971-02-02" }])).status).toBe(200);
    // A transaction update keeps it too.
    const tx = await fetch(b, { method: "POST", json: { resourceType: "Bundle", type: "transaction", entry: [{ resource: { ...observation(patient.id), id: obs.id }, request: { method: "PUT", url: `Observation/${obs.id}` } }] } });
    expect(tx.status).toBe(200);
    expect(leaks(await tx.json())).toBe(false);

    const stored = (await (await t.fetch(`${b}/Patient/${patient.id}`)).json()) as Resource;
    expect(stored).toMatchObject({ name: [{ family: "Roe" }], telecom: [{ system: "phone", value: "555-0100" }], identifier: [{ value: "MRN1" }], birthDate: "1971-02-02" });
    expect(((await (await t.fetch(`${b}/Observation/${obs.id}`)).json()) as Resource).note).toEqual([{ text: "private note" }]);
    // The admin key, without the policy, sees every field.
    expect(JSON.stringify(await bundle(t.fetch, `${b}/Patient/${patient.id}/$everything`))).toContain("private note");
  });

  it("applies to a user and to a client application's tokens, and never in another organization", async () => {
    const t = await createTenant();
    const other = await createTenant();
    const [p1, p2] = await createAll(t, [{ resourceType: "Patient", name: [{ family: "One" }] }, { resourceType: "Patient", name: [{ family: "Two" }] }]);
    const policy = await createPolicy(t, { name: "p1", resources: [{ resource_type: "Patient", compartment: { patient: `Patient/${p1}` } }] });

    // A user: the assignment rides on the principal built from their row (as a console session builds it).
    const user = await new UserStore(t.ctx.control).create({ orgId: t.orgId, email: `u${crypto.randomUUID()}@example.org`, name: "U", role: "clinician", invitationHash: crypto.randomUUID(), invitationExpiresAt: new Date(Date.now() + 60_000).toISOString(), createdBy: t.keyId });
    expect((await t.fetch(`/api/v1/access-policies/${policy.id}/assignments/users/${user.id}`, { method: "PUT" })).status).toBe(200);
    const row = await new UserStore(t.ctx.control).get(t.orgId, user.id);
    const asUser = t.ctx.fhir(userPrincipal(row!), { extensions: t.ctx.fhirExtensions });
    expect((await asUser.read("Patient", p1!)).id).toBe(p1);
    await expect(asUser.read("Patient", p2!)).rejects.toMatchObject({ status: 404 });
    // Another organization cannot unassign it.
    expect((await other.fetch(`/api/v1/access-policies/${policy.id}/assignments/users/${user.id}`, { method: "DELETE" })).status).toBe(404);
    expect((await userPolicyAssignments.holding(t.ctx.control, t.orgId, policy.id)).map((h) => h.id)).toEqual([user.id]);

    // A client application: its token carries the policy it had when issued.
    const { privateKey, publicKey } = await generateKeyPair("ES384", { extractable: true });
    const jwk = { ...(await exportJWK(publicKey)), kid: "k1", alg: "ES384", use: "sig" };
    const registered = await t.fetch("/api/v1/client-applications", { method: "POST", json: { name: "backend", jwks: { keys: [jwk] }, scopes: ["system/Patient.rs"] } });
    const client = (await registered.json()) as { id: string };
    expect((await t.fetch(`/api/v1/access-policies/${policy.id}/assignments/client-applications/${client.id}`, { method: "PUT" })).status).toBe(200);
    const now = Math.floor(Date.now() / 1000);
    const assertion = await new SignJWT({}).setProtectedHeader({ alg: "ES384", kid: "k1" }).setIssuer(client.id).setSubject(client.id).setAudience(`http://localhost/fhir/r4/${t.orgId}/auth/token`).setExpirationTime(now + 120).setJti(crypto.randomUUID()).sign(privateKey);
    const form = new URLSearchParams({ grant_type: "client_credentials", client_assertion_type: "urn:ietf:params:oauth:client-assertion-type:jwt-bearer", client_assertion: assertion, scope: "system/Patient.rs" });
    const issued = await call(`/fhir/r4/${t.orgId}/auth/token`, { method: "POST", body: form, headers: { "content-type": "application/x-www-form-urlencoded" } });
    expect(issued.status).toBe(200);
    const token = ((await issued.json()) as { access_token: string }).access_token;
    const asClient = (path: string) => call(`${base(t)}/${path}`, { headers: { authorization: `Bearer ${token}` } });
    expect((await asClient(`Patient/${p1}`)).status).toBe(200);
    expect((await asClient(`Patient/${p2}`)).status).toBe(404);
    expect(((await (await asClient("Patient?_total=accurate")).json()) as Bundle).total).toBe(1);

    // A principal of another organization naming this policy's id reaches nothing there (the policy is unknown in it).
    await post(other, { resourceType: "Patient", name: [{ family: "Elsewhere" }] });
    const stray: Principal = { orgId: other.orgId, keyId: other.keyId, keyName: "k", role: "admin", scopes: [], accessPolicyId: policy.id };
    const strayStore = other.ctx.fhir(stray, { extensions: other.ctx.fhirExtensions });
    await expect(strayStore.search("Patient", "_total=accurate")).rejects.toMatchObject({ status: 403 });
    await expect(strayStore.read("Patient", (await post(other, { resourceType: "Patient" })).id)).rejects.toMatchObject({ status: 404 });
    await expect(strayStore.create({ resourceType: "Patient" })).rejects.toMatchObject({ status: 403 });
  });

  it("a SMART token's launch patient is pushed into the query as well: pages full, total right", async () => {
    const t = await createTenant();
    const [p1, p2] = await createAll(t, [{ resourceType: "Patient" }, { resourceType: "Patient" }]);
    // Interleaved: one of the launch patient's in every three.
    await createAll(t, Array.from({ length: 30 }, (_, i) => observation(i % 3 === 0 ? p1! : p2!)));
    const fetch = appFetch(buildApp({ policyFor: (_env, principal) => smartScopePolicy({ ...principal, fhirGrant: { scopes: ["patient/Observation.rs"], patient: p1! } }) }), t);
    const first = await bundle(fetch, `${base(t)}/Observation?_count=5&_total=accurate`);
    expect([idsOf(first).length, first.total]).toEqual([5, 10]);
    const second = await bundle(fetch, next(first)!);
    expect(idsOf(second)).toHaveLength(5);
    expect(next(second)).toBeUndefined();
  });
});
