// SMART scopes enforced by the store (features/fhir/scopes/): a grant of patient/Observation.rs
// for the launch patient p1 reads p1's Observations, finds p2's absent (404), searches only p1's
// (total included), and may not create (403 naming the missing scope). Over HTTP the grant is put
// on the request's principal by the test's policyFor; through the composition root (ctx.fhir) it
// rides on the principal itself, as a token's will. A principal without a grant is unaffected.
import { describe, expect, it } from "vitest";
import { smartScopePolicy } from "../../src/features/fhir";
import type { Bundle, Resource } from "../../src/features/fhir/port";
import { buildApp } from "../../src/main/app";
import type { FhirGrant, Principal } from "../../src/platform/principal";
import { appFetch } from "../support/app-fetch";
import { type Tenant, createTenant } from "../support/tenants";
import { post } from "./support";

const GRANT_SCOPES = ["openid", "launch/patient", "patient/Observation.rs"];

async function twoPatients(t: Tenant) {
  const p1 = await post(t, { resourceType: "Patient", name: [{ family: "One" }] });
  const p2 = await post(t, { resourceType: "Patient", name: [{ family: "Two" }] });
  const observation = (p: { id: string }, value: number) =>
    post(t, { resourceType: "Observation", status: "final", code: { text: "hr" }, subject: { reference: `Patient/${p.id}` }, valueQuantity: { value } });
  return { p1, p2, p1Obs: [await observation(p1, 60), await observation(p1, 61)], p2Obs: [await observation(p2, 90)] };
}

const idsOf = (b: Bundle) => (b.entry ?? []).filter((e) => e.resource).map((e) => `${e.resource!.resourceType}/${e.resource!.id}`);
const newObservation = (patient: string): Resource => ({ resourceType: "Observation", status: "final", code: { text: "hr" }, subject: { reference: `Patient/${patient}` } });

describe("SMART scopes on the FHIR API", () => {
  it("patient/Observation.rs reaches only the launch patient's Observations, and writes nothing", async () => {
    const t = await createTenant();
    const other = await createTenant();
    const { p1, p2, p1Obs, p2Obs } = await twoPatients(t);
    // Another organization's Observation for its own patient: never this token's.
    const foreign = (await twoPatients(other)).p1Obs[0]!;
    const grant: FhirGrant = { scopes: GRANT_SCOPES, patient: p1.id };
    const fetch = appFetch(buildApp({ policyFor: (_env, principal) => smartScopePolicy({ ...principal, fhirGrant: grant }) }), t);
    const base = `/fhir/r4/${t.orgId}`;
    const bundle = async (path: string) => {
      const res = await fetch(`${base}/${path}`);
      expect(res.status, path).toBe(200);
      return (await res.json()) as Bundle;
    };

    expect((await fetch(`${base}/Observation/${p1Obs[0]!.id}`)).status).toBe(200);
    expect((await fetch(`${base}/Observation/${p1Obs[0]!.id}/_history/1`)).status).toBe(200);
    for (const path of [`Observation/${p2Obs[0]!.id}`, `Observation/${foreign.id}`, `Patient/${p1.id}`, `Patient/${p2.id}`]) {
      expect((await fetch(`${base}/${path}`)).status, path).toBe(404);
    }

    const searched = await bundle("Observation?_total=accurate");
    expect(idsOf(searched).sort()).toEqual(p1Obs.map((o) => `Observation/${o.id}`).sort());
    expect(searched.total).toBe(2);
    expect((await bundle("Observation?_summary=count")).total).toBe(2);
    // No scope names Patient: the search is refused before it runs, naming the scope it lacks.
    const patients = await fetch(`${base}/Patient`);
    expect(patients.status).toBe(403);
    expect(JSON.stringify(await patients.json())).toContain("do not grant patient/Patient.s");
    expect(idsOf(await bundle(`Observation/${p2Obs[0]!.id}/_history`))).toEqual([]);

    const created = await fetch(`${base}/Observation`, { method: "POST", json: newObservation(p1.id) });
    expect(created.status).toBe(403);
    const outcome = (await created.json()) as { resourceType: string; issue: { diagnostics: string }[] };
    expect(outcome.resourceType).toBe("OperationOutcome");
    expect(outcome.issue[0]!.diagnostics).toMatch(/the token's scopes do not grant patient\/Observation\.c/);

    // The same key without the grant: everything, as before.
    expect((await t.fetch(`${base}/Observation/${p2Obs[0]!.id}`)).status).toBe(200);
    const all = (await (await t.fetch(`${base}/Observation?_total=accurate`)).json()) as Bundle;
    expect(all.total).toBe(3);
    expect((await t.fetch(`${base}/Observation`, { method: "POST", json: newObservation(p2.id) })).status).toBe(201);
  });

  it("the composition root enforces the grant a principal carries, on top of the org's policy", async () => {
    const t = await createTenant();
    const { p1, p1Obs, p2Obs } = await twoPatients(t);
    const key: Principal = { orgId: t.orgId, keyId: t.keyId, keyName: "admin key", role: "admin", scopes: [] };
    const token: Principal = { ...key, fhirGrant: { scopes: GRANT_SCOPES, patient: p1.id } };
    const store = t.ctx.fhir(token, { extensions: t.ctx.fhirExtensions });

    expect((await store.read("Observation", p1Obs[0]!.id)).id).toBe(p1Obs[0]!.id);
    await expect(store.read("Observation", p2Obs[0]!.id)).rejects.toMatchObject({ status: 404 });
    const found = await store.search("Observation", "_total=accurate");
    expect(idsOf(found).sort()).toEqual(p1Obs.map((o) => `Observation/${o.id}`).sort());
    expect(found.total).toBe(2);
    await expect(store.create(newObservation(p1.id))).rejects.toMatchObject({ status: 403 });

    // Without a grant the store is the org's as before: every Observation, writes allowed.
    const plain = t.ctx.fhir(key, { extensions: t.ctx.fhirExtensions });
    expect((await plain.search("Observation", "_total=accurate")).total).toBe(3);
    expect((await plain.create(newObservation(p1.id))).outcome).toBe("created");
  });

  it("a granular scope (patient/Observation.rs?category=...) narrows the query itself: full pages, next links and totals of what it grants", async () => {
    const t = await createTenant();
    const other = await createTenant();
    const p1 = await post(t, { resourceType: "Patient", name: [{ family: "One" }] });
    const p2 = await post(t, { resourceType: "Patient", name: [{ family: "Two" }] });
    const CAT = "http://terminology.hl7.org/CodeSystem/observation-category";
    const obs = (owner: Tenant, patient: string, category: string, system = CAT) =>
      post(owner, { resourceType: "Observation", status: "final", category: [{ coding: [{ system, code: category }] }], code: { text: "x" }, subject: { reference: `Patient/${patient}` } });
    // Interleaved, so that a page of the unnarrowed query would hold laboratory results the filter drops.
    const vitals: string[] = [];
    for (let i = 0; i < 5; i++) {
      vitals.push((await obs(t, p1.id, "vital-signs")).id);
      await obs(t, p1.id, "laboratory");
      await obs(t, p1.id, "laboratory");
    }
    await obs(t, p2.id, "vital-signs"); // another patient's
    await obs(t, p1.id, "vital-signs", "http://example.org/other-system"); // the same code in another system
    await obs(other, p1.id, "vital-signs"); // another organization's
    const grant: FhirGrant = { scopes: ["launch/patient", `patient/Observation.rs?category=${encodeURIComponent(`${CAT}|vital-signs`)}`], patient: p1.id };
    const fetch = appFetch(buildApp({ policyFor: (_env, principal) => smartScopePolicy({ ...principal, fhirGrant: grant }) }), t);
    const base = `/fhir/r4/${t.orgId}`;
    const page = async (url: string) => {
      const res = await fetch(url.startsWith("http") ? url.slice(url.indexOf("/fhir/")) : url);
      expect(res.status, url).toBe(200);
      return (await res.json()) as Bundle & { link?: { relation: string; url: string }[] };
    };

    const first = await page(`${base}/Observation?_count=2&_total=accurate`);
    expect(first.total).toBe(5);
    expect(idsOf(first)).toHaveLength(2);
    const seen = [...idsOf(first)];
    let next = first.link?.find((l) => l.relation === "next")?.url;
    let pages = 1;
    while (next) {
      const p = await page(next);
      expect(idsOf(p).length, `page ${pages + 1}`).toBe(pages < 2 ? 2 : 1);
      seen.push(...idsOf(p));
      next = p.link?.find((l) => l.relation === "next")?.url;
      pages++;
    }
    expect(pages).toBe(3);
    expect(seen.sort()).toEqual(vitals.map((id) => `Observation/${id}`).sort());
    expect((await page(`${base}/Observation?_summary=count`)).total).toBe(5);
    // The request's own criteria meet the scope's: laboratory is beyond it, whatever is asked.
    expect((await page(`${base}/Observation?category=laboratory&_total=accurate`)).total).toBe(0);
    expect((await page(`${base}/Observation?category=vital-signs&_count=3&_total=accurate`)).total).toBe(5);

    // Two granular scopes: either admits (OR), in the query too.
    const both: FhirGrant = { scopes: [...grant.scopes, "patient/Observation.rs?category=laboratory"], patient: p1.id };
    const fetchBoth = appFetch(buildApp({ policyFor: (_env, principal) => smartScopePolicy({ ...principal, fhirGrant: both }) }), t);
    expect((((await (await fetchBoth(`${base}/Observation?_count=4&_total=accurate`)).json()) as Bundle).total)).toBe(15);
  });
});

