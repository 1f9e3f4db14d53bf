// Search semantics per parameter kind and modifier, sorting, paging, includes, chaining, _has,
// result shaping, and tenant isolation of each.
import { beforeAll, describe, expect, it } from "vitest";
import { type Tenant, createTenant } from "../support/tenants";
import { ids, post, search } from "./support";

let t: Tenant;
let other: Tenant;
const P: Record<string, string> = {};
const O: Record<string, string> = {};

beforeAll(async () => {
  t = await createTenant();
  other = await createTenant();
  const org = await post(t, { resourceType: "Organization", name: "Acme Health" });
  P.alvarez = (await post(t, {
    resourceType: "Patient",
    name: [{ family: "Álvarez", given: ["José"] }],
    gender: "male",
    birthDate: "1980-05-17",
    identifier: [{ system: "urn:mrn", value: "A1", type: { coding: [{ system: "http://terminology.hl7.org/CodeSystem/v2-0203", code: "MR" }] } }],
    telecom: [{ system: "email", value: "jose@example.org" }],
    managingOrganization: { reference: `Organization/${org.id}` },
    meta: { tag: [{ system: "urn:tags", code: "vip" }], profile: ["http://example.org/fhir/StructureDefinition/my-patient"] },
  })).id;
  P.alvin = (await post(t, { resourceType: "Patient", name: [{ family: "Alvin", given: ["Ann"] }], gender: "female", birthDate: "1980-05", identifier: [{ system: "urn:mrn", value: "A2" }] })).id;
  P.smith = (await post(t, { resourceType: "Patient", name: [{ family: "Smith", given: ["Zoe"] }], gender: "female", birthDate: "1990" })).id;
  P.org = org.id;
  const obs = (patient: string, code: string, value: number, date: string, extra: Record<string, unknown> = {}) =>
    post(t, {
      resourceType: "Observation",
      status: "final",
      code: { coding: [{ system: "http://loinc.org", code, display: code === "8480-6" ? "Systolic blood pressure" : "Heart rate" }], text: "vital" },
      subject: { reference: `Patient/${patient}` },
      effectiveDateTime: date,
      valueQuantity: { value, unit: "mmHg", system: "http://unitsofmeasure.org", code: "mm[Hg]" },
      ...extra,
    });
  O.a1 = (await obs(P.alvarez, "8480-6", 120, "2020-01-01T10:00:00Z")).id;
  O.a2 = (await obs(P.alvarez, "8480-6", 150, "2020-02-15T10:00:00+02:00")).id;
  O.s1 = (await obs(P.smith, "8867-4", 70, "2021-06-01")).id;
  O.s2 = (await obs(P.smith, "8480-6", 110, "2021-06-02T00:00:00Z", { performer: [{ reference: `Organization/${org.id}` }] })).id;
  // Another tenant with look-alike data: never visible to t.
  const foreignPatient = await post(other, { resourceType: "Patient", name: [{ family: "Alvarez" }], gender: "male", identifier: [{ system: "urn:mrn", value: "A1" }] });
  await post(other, { resourceType: "Observation", status: "final", code: { coding: [{ system: "http://loinc.org", code: "8480-6" }] }, subject: { reference: `Patient/${foreignPatient.id}` }, valueQuantity: { value: 130 } });
  P.foreign = foreignPatient.id;
});

const sorted = (a: string[]) => [...a].sort();

describe("string", () => {
  it("starts-with, case- and accent-insensitive; :exact and :contains", async () => {
    expect(sorted(await ids(t, "Patient?name=alv"))).toEqual(sorted([P.alvarez!, P.alvin!]));
    expect(await ids(t, "Patient?family=ALVAREZ")).toEqual([P.alvarez]);
    expect(await ids(t, "Patient?name=jose")).toEqual([P.alvarez]);
    expect(await ids(t, "Patient?family:exact=Álvarez")).toEqual([P.alvarez]);
    expect(await ids(t, "Patient?family:exact=alvarez")).toEqual([]);
    expect(await ids(t, "Patient?family:contains=vare")).toEqual([P.alvarez]);
    expect(sorted(await ids(t, "Patient?name=smith,alvin"))).toEqual(sorted([P.smith!, P.alvin!]));
  });
});

describe("token", () => {
  it("system|code, |code, system|, code, :not, :text, :of-type, :missing", async () => {
    expect(await ids(t, "Patient?identifier=urn:mrn|A1")).toEqual([P.alvarez]);
    expect(sorted(await ids(t, "Patient?identifier=urn:mrn|"))).toEqual(sorted([P.alvarez!, P.alvin!]));
    expect(await ids(t, "Patient?identifier=A2")).toEqual([P.alvin]);
    expect(await ids(t, "Patient?identifier=|A2")).toEqual([]);
    expect(await ids(t, "Patient?gender=male")).toEqual([P.alvarez]);
    expect(sorted(await ids(t, "Patient?gender:not=male"))).toEqual(sorted([P.alvin!, P.smith!]));
    expect(sorted(await ids(t, "Observation?code=http://loinc.org|8480-6"))).toEqual(sorted([O.a1!, O.a2!, O.s2!]));
    expect(await ids(t, "Observation?code:text=heart")).toEqual([O.s1]);
    expect(await ids(t, "Patient?identifier:of-type=http://terminology.hl7.org/CodeSystem/v2-0203|MR|A1")).toEqual([P.alvarez]);
    expect(await ids(t, "Patient?email=jose@example.org")).toEqual([P.alvarez]);
    expect(await ids(t, "Patient?identifier:missing=true")).toEqual([P.smith]);
    expect(sorted(await ids(t, "Patient?identifier:missing=false"))).toEqual(sorted([P.alvarez!, P.alvin!]));
  });
});

describe("reference, chaining and _has", () => {
  it("Type/id, bare id, :Type, absolute URL", async () => {
    expect(sorted(await ids(t, `Observation?subject=Patient/${P.alvarez}`))).toEqual(sorted([O.a1!, O.a2!]));
    expect(sorted(await ids(t, `Observation?patient=${P.alvarez}`))).toEqual(sorted([O.a1!, O.a2!]));
    expect(sorted(await ids(t, `Observation?subject:Patient=${P.smith}`))).toEqual(sorted([O.s1!, O.s2!]));
    expect(sorted(await ids(t, `Observation?subject=http://localhost/fhir/r4/${t.orgId}/Patient/${P.smith}`))).toEqual(sorted([O.s1!, O.s2!]));
  });
  it(":identifier on references, and :missing on references and dates", async () => {
    const u = await createTenant();
    const withIdentifier = await post(u, { resourceType: "Observation", status: "final", code: { text: "x" }, subject: { identifier: { system: "urn:mrn", value: "Z9" } } });
    const withDate = await post(u, { resourceType: "Observation", status: "final", code: { text: "y" }, effectiveDateTime: "2024-01-01" });
    expect(await ids(u, "Observation?subject:identifier=urn:mrn|Z9")).toEqual([withIdentifier.id]);
    expect(await ids(u, "Observation?date:missing=true")).toEqual([withIdentifier.id]);
    expect(await ids(u, "Observation?date:missing=false")).toEqual([withDate.id]);
    expect(await ids(u, "Observation?date=ap2024-01-01")).toEqual([withDate.id]);
    expect(await ids(u, "Observation?date=ap2010-01-01")).toEqual([]);
  });
  it("chains one and two levels deep", async () => {
    expect(sorted(await ids(t, "Observation?subject:Patient.name=alvarez"))).toEqual(sorted([O.a1!, O.a2!]));
    expect(sorted(await ids(t, "Observation?patient.identifier=urn:mrn|A1"))).toEqual(sorted([O.a1!, O.a2!]));
    expect(sorted(await ids(t, "Observation?subject:Patient.organization.name=acme"))).toEqual(sorted([O.a1!, O.a2!]));
  });
  it("_has, nested", async () => {
    expect(sorted(await ids(t, "Patient?_has:Observation:patient:code=8480-6"))).toEqual(sorted([P.alvarez!, P.smith!]));
    expect(await ids(t, "Patient?_has:Observation:patient:code=8867-4")).toEqual([P.smith]);
    expect(await ids(t, "Organization?_has:Patient:organization:_has:Observation:patient:value-quantity=gt140")).toEqual([P.org]);
  });
  it("never crosses tenants: chains, _has and ids of another org match nothing", async () => {
    expect(await ids(t, `Observation?subject=Patient/${P.foreign}`)).toEqual([]);
    expect(await ids(t, `Patient?_id=${P.foreign}`)).toEqual([]);
    expect(await ids(other, `Patient?_id=${P.alvarez}`)).toEqual([]);
    expect(await ids(other, "Observation?subject:Patient.name=jose")).toEqual([]);
    expect((await ids(other, "Patient?_has:Observation:patient:code=8480-6")).length).toBe(1);
    expect(await ids(other, "Patient?_has:Observation:patient:code=8480-6")).toEqual([P.foreign]);
  });
});

describe("date, number, quantity, uri, composite", () => {
  it("date prefixes with precision semantics", async () => {
    expect(await ids(t, "Patient?birthdate=1980-05-17")).toEqual([P.alvarez]);
    expect(sorted(await ids(t, "Patient?birthdate=1980-05"))).toEqual(sorted([P.alvarez!, P.alvin!]));
    expect(sorted(await ids(t, "Patient?birthdate=1980"))).toEqual(sorted([P.alvarez!, P.alvin!]));
    // 1980-05 (a whole month) is not within the single day 1980-05-17.
    expect(await ids(t, "Patient?birthdate=eq1980-05-17")).toEqual([P.alvarez]);
    expect(await ids(t, "Patient?birthdate=gt1985")).toEqual([P.smith]);
    expect(sorted(await ids(t, "Patient?birthdate=lt1985"))).toEqual(sorted([P.alvarez!, P.alvin!]));
    expect(await ids(t, "Patient?birthdate=sa1980-12-31")).toEqual([P.smith]);
    expect(sorted(await ids(t, "Patient?birthdate=ne1990"))).toEqual(sorted([P.alvarez!, P.alvin!]));
    // 10:00+02:00 is 08:00Z.
    expect(await ids(t, "Observation?date=2020-02-15T08:00:00Z")).toEqual([O.a2]);
    expect(sorted(await ids(t, "Observation?date=ge2021-06-01&date=le2021-06-02"))).toEqual(sorted([O.s1!, O.s2!]));
    expect(await ids(t, "Observation?date=eb2020-01-02")).toEqual([O.a1]);
  });
  it("_lastUpdated", async () => {
    expect((await ids(t, "Observation?_lastUpdated=gt2000-01-01")).length).toBe(4);
    expect(await ids(t, "Observation?_lastUpdated=lt2000-01-01")).toEqual([]);
  });
  it("quantity with prefixes and value|system|code; composite code-value-quantity", async () => {
    expect(await ids(t, "Observation?value-quantity=gt140")).toEqual([O.a2]);
    expect(await ids(t, "Observation?value-quantity=120|http://unitsofmeasure.org|mm[Hg]")).toEqual([O.a1]);
    expect(await ids(t, "Observation?value-quantity=120||cm")).toEqual([]);
    expect(sorted(await ids(t, "Observation?value-quantity=ap115"))).toEqual(sorted([O.a1!, O.s2!]));
    expect(await ids(t, "Observation?code-value-quantity=http://loinc.org|8480-6$lt115")).toEqual([O.s2]);
    expect(await ids(t, "Observation?code-value-quantity=8867-4$gt100")).toEqual([]);
  });
  it("uri :below and :above; _tag, _profile", async () => {
    expect(await ids(t, "Patient?_profile=http://example.org/fhir/StructureDefinition/my-patient")).toEqual([P.alvarez]);
    expect(await ids(t, "Patient?_profile:below=http://example.org/fhir")).toEqual([P.alvarez]);
    expect(await ids(t, "Patient?_profile:above=http://example.org/fhir/StructureDefinition/my-patient/extra")).toEqual([P.alvarez]);
    expect(await ids(t, "Patient?_tag=urn:tags|vip")).toEqual([P.alvarez]);
  });
});

describe("sorting and paging", () => {
  it("sorts by several keys, descending, with stable ties", async () => {
    expect(await ids(t, "Patient?_sort=family")).toEqual([P.alvarez, P.alvin, P.smith]);
    // Descending date sorts use the end of each value's range: 1980-05 ends after 1980-05-17.
    expect(await ids(t, "Patient?_sort=-birthdate")).toEqual([P.smith, P.alvin, P.alvarez]);
    const byGenderThenName = await ids(t, "Patient?_sort=gender,-family");
    expect(byGenderThenName).toEqual([P.smith, P.alvin, P.alvarez]);
    expect(await ids(t, "Observation?_sort=-date&code=8480-6")).toEqual([O.s2, O.a2, O.a1]);
  });
  it("pages with next/previous links that survive concurrent inserts and carry the tenant", async () => {
    const u = await createTenant();
    for (let i = 0; i < 7; i++) await post(u, { resourceType: "Patient", name: [{ family: `P${i}` }] });
    const first = await search(u, "Patient?_sort=family&_count=3");
    expect(first.total).toBe(7); // PDQm counts every Patient search (docs/ihe.md); other types leave a paged total out
    expect(first.entry!.map((e) => (e.resource as unknown as { name: { family: string }[] }).name[0]!.family)).toEqual(["P0", "P1", "P2"]);
    const next = first.link!.find((l) => l.relation === "next")!.url;
    expect(first.link!.find((l) => l.relation === "previous")).toBeUndefined();
    // A write that sorts before the cursor must not shift the next page.
    await post(u, { resourceType: "Patient", name: [{ family: "P0a" }] });
    const path = new URL(next).pathname + new URL(next).search;
    const second = (await (await u.fetch(path)).json()) as { entry: { resource: { name: { family: string }[] } }[]; link: { relation: string; url: string }[] };
    expect(second.entry.map((e) => e.resource.name[0]!.family)).toEqual(["P3", "P4", "P5"]);
    const prev = second.link.find((l) => l.relation === "previous")!.url;
    const back = (await (await u.fetch(new URL(prev).pathname + new URL(prev).search)).json()) as { entry: { resource: { name: { family: string }[] } }[] };
    expect(back.entry.map((e) => e.resource.name[0]!.family)).toEqual(["P0a", "P1", "P2"]);
    // The same cursor under another org's path is refused.
    const stolen = await other.fetch(`/fhir/r4/${other.orgId}/Patient${new URL(next).search}`);
    expect(stolen.status).toBe(400);
  });
  it("_count caps at 1000, _total=accurate counts, _summary=count gives only the total", async () => {
    const all = await search(t, "Patient?_count=5000&_total=accurate");
    expect(all.total).toBe(3);
    expect((await search(t, "Patient?_count=0")).total).toBe(3);
    const count = await search(t, "Observation?_summary=count");
    expect(count.total).toBe(4);
    expect(count.entry).toBeUndefined();
    // Nothing to page through: a count has no next link, whatever the page size.
    const small = await search(t, "Observation?_summary=count&_count=1");
    expect(small.total).toBe(4);
    expect(small.link?.map((l) => l.relation)).toEqual(["self"]);
  });
});

describe("includes and shaping", () => {
  it("_include, _revinclude, :iterate and *", async () => {
    const inc = await search(t, `Observation?_id=${O.a1}&_include=Observation:subject`);
    expect(inc.entry!.map((e) => [e.search!.mode, e.resource!.id])).toEqual([["match", O.a1], ["include", P.alvarez]]);
    const rev = await search(t, `Patient?_id=${P.smith}&_revinclude=Observation:subject`);
    expect(sorted(rev.entry!.filter((e) => e.search!.mode === "include").map((e) => e.resource!.id!))).toEqual(sorted([O.s1!, O.s2!]));
    const iter = await search(t, `Observation?_id=${O.a1}&_include=Observation:patient&_include:iterate=Patient:organization`);
    expect(iter.entry!.map((e) => e.resource!.id)).toEqual([O.a1, P.alvarez, P.org]);
    const star = await search(t, `Observation?_id=${O.s2}&_include=*`);
    expect(sorted(star.entry!.filter((e) => e.search!.mode === "include").map((e) => e.resource!.id!))).toEqual(sorted([P.smith!, P.org!]));
    expect(inc.entry![0]!.fullUrl).toMatch(new RegExp(`/fhir/r4/${t.orgId}/Observation/${O.a1}$`));
  });
  it("includes never pull another tenant's resources even when references point at them", async () => {
    const x = await post(t, { resourceType: "Observation", status: "final", code: { text: "x" }, subject: { reference: `Patient/${P.foreign}` } });
    const inc = await search(t, `Observation?_id=${x.id}&_include=Observation:subject`);
    expect(inc.entry!.map((e) => e.resource!.id)).toEqual([x.id]);
    const rev = await search(other, `Patient?_id=${P.foreign}&_revinclude=Observation:subject`);
    expect(rev.entry!.map((e) => e.resource!.id)).not.toContain(x.id);
  });
  it("_summary=true and _elements subset and tag SUBSETTED", async () => {
    const s = await search(t, `Patient?_id=${P.alvarez}&_summary=true`);
    const r = s.entry![0]!.resource as Record<string, unknown> & { meta: { tag: { code: string }[] } };
    expect(r.name).toBeDefined();
    expect(r.telecom).toBeDefined();
    expect(r.meta.tag.map((x) => x.code)).toContain("SUBSETTED");
    const e = await search(t, `Patient?_id=${P.alvarez}&_elements=gender`);
    expect(Object.keys(e.entry![0]!.resource!).sort()).toEqual(["gender", "id", "meta", "resourceType"]);
  });
  it("unknown parameters: warning by default, 400 under Prefer: handling=strict", async () => {
    const lenient = await search(t, "Patient?nonsense=1");
    expect(lenient.entry!.find((e) => e.search?.mode === "outcome")!.resource).toMatchObject({ resourceType: "OperationOutcome", issue: [{ severity: "warning" }] });
    const strict = await t.fetch(`/fhir/r4/${t.orgId}/Patient?nonsense=1`, { headers: { prefer: "handling=strict" } });
    expect(strict.status).toBe(400);
    expect((await t.fetch(`/fhir/r4/${t.orgId}/Patient?birthdate=notadate`)).status).toBe(400);
  });
  it("POST _search and system-level search with _type", async () => {
    const res = await t.fetch(`/fhir/r4/${t.orgId}/Patient/_search`, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: "gender=female&_sort=family" });
    const b = (await res.json()) as { entry: { resource: { id: string } }[] };
    expect(b.entry.map((e) => e.resource.id)).toEqual([P.alvin, P.smith]);
    expect(sorted(await ids(t, `?_type=Patient,Organization&_id=${P.smith},${P.org}`))).toEqual(sorted([P.smith!, P.org!]));
  });
});
