// PDQm ITI-119 Patient/$match over HTTP: the synthetic population's precision and recall,
// the match-grade extension and score, onlyCertainMatches, count, a bare Patient body, request
// errors, tenancy, and the patient-match node over the same matcher.
import { describe, expect, it } from "vitest";
import type { Bundle, Resource } from "../../../src/features/fhir/port";
import { MRN, cases, population, precisionRecall } from "../../fixtures/pdqm/population";
import { createPipeline, definition, edge, run, trigger } from "../../support/pipelines";
import { createTenant, type Tenant } from "../../support/tenants";
import { post } from "../../fhir/support";

const GRADE = "http://hl7.org/fhir/StructureDefinition/match-grade";
type Entry = { resource: Resource & { identifier?: { system: string; value: string }[] }; search: { mode: string; score: number; extension: { url: string; valueCode: string }[] } };

async function match(t: Tenant, body: unknown, status = 200) {
  const res = await t.fetch(`/fhir/r4/${t.orgId}/Patient/$match`, { method: "POST", body: JSON.stringify(body), headers: { "content-type": "application/fhir+json" } });
  const json = (await res.json()) as Omit<Bundle, "entry"> & { entry?: Entry[] };
  expect(res.status, JSON.stringify(json)).toBe(status);
  return json;
}

const params = (patient: Resource, extra: object[] = []) => ({ resourceType: "Parameters", parameter: [{ name: "resource", resource: patient }, ...extra] });
const grade = (e: Entry) => e.search.extension.find((x) => x.url === GRADE)!.valueCode;
const keyOf = (e: Entry) => {
  const mrn = e.resource.identifier?.find((i) => i.system === MRN)?.value;
  return mrn ? `P${Number(mrn.slice(3))}` : null;
};

async function loadPopulation(t: Tenant) {
  const entry = population().map((p) => ({ resource: p.patient, request: { method: "POST", url: "Patient" } }));
  const res = await t.fetch(`/fhir/r4/${t.orgId}`, { method: "POST", json: { resourceType: "Bundle", type: "transaction", entry } });
  expect(res.status).toBe(200);
}

describe("Patient/$match", () => {
  it("grades the synthetic population: certain precision 1.0, probable-or-better recall ≥ 0.9", async () => {
    const t = await createTenant();
    await loadPopulation(t);
    const results = [];
    for (const c of cases()) {
      const b = await match(t, params(c.query, [{ name: "count", valueInteger: 5 }]));
      for (const e of b.entry ?? []) {
        expect(e.search.mode).toBe("match");
        expect(e.search.score).toBeGreaterThanOrEqual(0);
        expect(e.search.score).toBeLessThanOrEqual(1);
        expect(["certain", "probable", "possible"]).toContain(grade(e));
      }
      expect(b.total).toBe(b.entry?.length ?? 0);
      results.push({ truth: c.truth, matches: (b.entry ?? []).map((e) => ({ key: keyOf(e), grade: grade(e) })) });
    }
    const pr = precisionRecall(results);
    expect(pr.withTruth).toBeGreaterThanOrEqual(50);
    expect(pr.certain.count).toBeGreaterThan(10);
    expect(pr.certain.precision).toBe(1);
    expect(pr.probableOrBetter.recall).toBeGreaterThanOrEqual(0.9);
    expect(pr.met).toBe(true);
  }, 60_000);

  it("honours onlyCertainMatches and count, and takes a bare Patient", async () => {
    const t = await createTenant();
    await loadPopulation(t);
    const [exact] = cases();
    const one = await match(t, params(exact!.query, [{ name: "onlyCertainMatches", valueBoolean: true }]));
    expect(one.entry!.map(keyOf)).toEqual(["P0"]);
    expect(grade(one.entry![0]!)).toBe("certain");
    // Only probable or possible matches: empty.
    const vague = { resourceType: "Patient", name: [{ family: "Lindqvist", given: ["Emma"] }], birthDate: "1990-06-15" };
    expect((await match(t, params(vague))).entry?.length).toBeGreaterThan(0);
    const none = await match(t, params(vague, [{ name: "onlyCertainMatches", valueBoolean: true }]));
    expect(none.entry ?? []).toEqual([]);
    expect(none.total).toBe(0);
    // Two certain matches (a duplicate record): empty.
    await post(t, structuredClone(exact!.query));
    expect((await match(t, params(exact!.query))).entry!.filter((e) => grade(e) === "certain").length).toBe(2);
    expect((await match(t, params(exact!.query, [{ name: "onlyCertainMatches", valueBoolean: true }]))).entry ?? []).toEqual([]);
    expect((await match(t, params(exact!.query, [{ name: "count", valueInteger: 1 }]))).entry!.length).toBe(1);
    const bare = await match(t, exact!.query);
    expect(bare.entry!.map(keyOf)[0]).toBe("P0");
  });

  it("answers an empty Bundle for nobody and 400 for bad requests", async () => {
    const t = await createTenant();
    await loadPopulation(t);
    const nobody = await match(t, params({ resourceType: "Patient", name: [{ family: "Nobody", given: ["At All"] }], birthDate: "1901-01-01" }));
    expect(nobody).toMatchObject({ resourceType: "Bundle", type: "searchset", total: 0 });
    const bad = async (body: unknown) => expect((await match(t, body, 400)).resourceType).toBe("OperationOutcome");
    await bad({ resourceType: "Parameters", parameter: [] });
    await bad({ resourceType: "Observation" });
    await bad(params({ resourceType: "Patient", gender: "male" }));
    await bad(params({ resourceType: "Patient", birthDate: "1990-01-01" }, [{ name: "count", valueInteger: 0 }]));
    await bad(params({ resourceType: "Patient", birthDate: "1990-01-01" }, [{ name: "onlyCertainMatches", valueString: "yes" }]));
  });

  it("never matches another organization's patients", async () => {
    const a = await createTenant();
    const b = await createTenant();
    await loadPopulation(a);
    const [exact] = cases();
    expect((await match(b, params(exact!.query))).entry ?? []).toEqual([]);
  });
});

describe("ihe.patient_match node", () => {
  it("routes a certain match and an unmatched patient", async () => {
    const t = await createTenant();
    await loadPopulation(t);
    const pipeline = await createPipeline(t, definition([trigger(), { id: "match", type: "ihe.patient_match" }], [edge("start", "match", "event", "input")]));
    const [exact] = cases();
    const hit = await run(t, pipeline, exact!.query as Record<string, unknown>);
    expect(hit.body.status).toBe("completed");
    const out = hit.body.outputs as { match: { certain?: Resource; unmatched?: Resource; matches: Bundle } };
    expect(out.match.certain?.id).toBeDefined();
    expect(out.match.matches.entry!.length).toBeGreaterThan(0);
    const miss = await run(t, pipeline, { resourceType: "Patient", name: [{ family: "Nobody" }], birthDate: "1901-01-01" });
    expect((miss.body.outputs as { match: { unmatched?: Resource } }).match.unmatched?.resourceType).toBe("Patient");
    const bad = await run(t, pipeline, { resourceType: "Observation" });
    expect(bad.body.node_results.match?.error?.code).toBe("PATIENT_MATCH_INPUT_INVALID");
  });
});
