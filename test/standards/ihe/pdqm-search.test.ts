// PDQm ITI-78 on Patient: the parameters the profile requires (each, and the required
// combinations), :exact on string parameters (names, address and its parts), mothersMaidenName (the IHE SearchParameter,
// indexed), Bundle.total (on every page), POST _search, and tenancy.
import { describe, expect, it } from "vitest";
import type { Bundle } from "../../../src/features/fhir/port";
import { convertToFhir } from "../../../src/standards/hl7v2/convert/index";
import { createTenant, type Tenant } from "../../support/tenants";
import { post } from "../../fhir/support";

const MMN = "http://hl7.org/fhir/StructureDefinition/patient-mothersMaidenName";

async function seed(t: Tenant) {
  const jo = await post(t, {
    resourceType: "Patient",
    active: true,
    identifier: [
      { system: "urn:oid:1.1", value: "A1" },
      { system: "urn:oid:2.2", value: "B1" },
    ],
    name: [{ family: "Müller", given: ["Jo", "Ann"] }],
    gender: "female",
    birthDate: "1980-05-06",
    telecom: [{ system: "phone", value: "555-0101" }],
    address: [{ line: ["1 Main St"], city: "Springfield", state: "IL", postalCode: "62701", country: "US" }],
    extension: [{ url: MMN, valueString: "Schneider" }],
  });
  const johanna = await post(t, {
    resourceType: "Patient",
    active: false,
    identifier: [{ system: "urn:oid:1.1", value: "A2" }],
    name: [{ family: "Mullerson", given: ["Johanna"] }],
    gender: "female",
    birthDate: "1975-01-01",
    address: [{ city: "Shelbyville", state: "IL", postalCode: "62565", country: "US" }],
    extension: [{ url: MMN, valueString: "Schneiderman" }],
  });
  return { jo: jo.id, johanna: johanna.id };
}

async function ids(t: Tenant, query: string): Promise<{ ids: string[]; total: number | undefined }> {
  const res = await t.fetch(`/fhir/r4/${t.orgId}/Patient?${query}`);
  expect(res.status, await res.clone().text()).toBe(200);
  const b = (await res.json()) as Bundle;
  return { ids: (b.entry ?? []).map((e) => e.resource!.id!).sort(), total: b.total };
}

describe("PDQm ITI-78 Patient search", () => {
  it("serves every required parameter, :exact on strings, and populates Bundle.total", async () => {
    const t = await createTenant();
    const { jo, johanna } = await seed(t);
    const both = [jo, johanna].sort();
    const cases: [string, string[]][] = [
      [`_id=${jo}`, [jo]],
      ["active=true", [jo]],
      ["family=mul", both],
      ["family:exact=Müller", [jo]],
      ["family:exact=müller", []],
      ["given=jo", both],
      ["given:exact=Jo", [jo]],
      ["identifier=urn:oid:1.1|A1", [jo]],
      ["identifier=urn:oid:1.1|A1,urn:oid:1.1|A2", both],
      ["identifier=urn:oid:1.1|A1&identifier=urn:oid:2.2|B1", [jo]],
      ["identifier=urn:oid:1.1|A2&identifier=urn:oid:2.2|B1", []],
      ["telecom=555-0101", [jo]],
      ["birthdate=1980-05-06", [jo]],
      ["birthdate=lt1978", [johanna]],
      ["address=springfield", [jo]],
      ["address-city=Shelbyville", [johanna]],
      ["address-city:exact=shelbyville", []],
      ["address:exact=Springfield", [jo]],
      ["address:exact=1 Main St", [jo]],
      ["address:exact=springfield", []],
      ["address:exact=Spring", []],
      ["address-state=IL", both],
      ["address-state=il", both],
      ["address-state:exact=IL", both],
      ["address-state:exact=il", []],
      ["address-postalcode=62701", [jo]],
      ["address-postalcode=6270", [jo]],
      ["address-postalcode:exact=62701", [jo]],
      ["address-postalcode:exact=6270", []],
      ["address-country=US", both],
      ["address-country=us", both],
      ["address-country:exact=US", both],
      ["address-country:exact=us", []],
      ["gender=female", both],
      ["mothersMaidenName=schneider", both],
      ["mothersMaidenName:exact=Schneider", [jo]],
      // The required combinations.
      ["family=muller&gender=female", both],
      ["birthdate=1980-05-06&family=Müller", [jo]],
    ];
    for (const [query, expected] of cases) {
      const r = await ids(t, query);
      expect(r.ids, query).toEqual(expected);
      expect(r.total, query).toBe(expected.length);
    }
    // Bundle.total counts every match, whatever the page holds: both pages of a one-per-page search say 2.
    const first = (await (await t.fetch(`/fhir/r4/${t.orgId}/Patient?family=mul&_count=1`)).json()) as Bundle;
    expect([first.entry!.length, first.total]).toEqual([1, 2]);
    const next = first.link!.find((l) => l.relation === "next")!.url;
    const second = (await (await t.fetch(new URL(next).pathname + new URL(next).search)).json()) as Bundle;
    expect([second.entry!.length, second.total]).toEqual([1, 2]);
    expect([first.entry![0]!.resource!.id, second.entry![0]!.resource!.id].sort()).toEqual(both);
    const posted = await t.fetch(`/fhir/r4/${t.orgId}/Patient/_search`, { method: "POST", body: "mothersMaidenName:exact=Schneiderman", headers: { "content-type": "application/x-www-form-urlencoded" } });
    expect(((await posted.json()) as Bundle).entry!.map((e) => e.resource!.id)).toEqual([johanna]);
  });

  it("lists mothersMaidenName in the CapabilityStatement", async () => {
    const t = await createTenant();
    const cs = (await (await t.fetch(`/fhir/r4/${t.orgId}/metadata`)).json()) as { rest: { resource: { type: string; searchParam: { name: string }[] }[] }[] };
    const patient = cs.rest[0]!.resource.find((r) => r.type === "Patient")!;
    expect(patient.searchParam.map((p) => p.name)).toContain("mothersMaidenName");
  });

  it("never returns another organization's patients", async () => {
    const a = await createTenant();
    const b = await createTenant();
    await seed(a);
    expect((await ids(b, "mothersMaidenName=schneider")).total).toBe(0);
    expect((await ids(b, "family=mul")).total).toBe(0);
  });

  it("filters returned identifiers to the requested domains; an unknown domain is 404 not-found", async () => {
    const t = await createTenant();
    const { jo } = await seed(t);
    const get = async (q: string) => {
      const res = await t.fetch(`/fhir/r4/${t.orgId}/Patient?${q}`);
      return { status: res.status, body: (await res.json()) as Bundle & { issue?: { severity: string; code: string; diagnostics: string }[] } };
    };
    const one = await get("identifier=urn:oid:2.2|");
    expect(one.status).toBe(200);
    expect(one.body.entry!.map((e) => e.resource!.id)).toEqual([jo]);
    expect(one.body.entry![0]!.resource!.identifier).toEqual([{ system: "urn:oid:2.2", value: "B1" }]);
    const cross = await get("identifier=urn:oid:1.1|A1&identifier=urn:oid:2.2|");
    expect(cross.body.entry![0]!.resource!.identifier).toEqual([{ system: "urn:oid:2.2", value: "B1" }]);
    const unknown = await get("identifier=urn:oid:9.9|");
    expect(unknown.status).toBe(404);
    expect(unknown.body.issue).toEqual([expect.objectContaining({ severity: "warning", code: "not-found", diagnostics: "targetSystem not found" })]);
    // Another organization does not know this org's domains.
    const b = await createTenant();
    expect((await b.fetch(`/fhir/r4/${b.orgId}/Patient?identifier=urn:oid:2.2|`)).status).toBe(404);
  });

  it("returns a patient merged by HL7 A40 with link replaced-by and the patient replacing it", async () => {
    const t = await createTenant();
    const msg = (id: string, type: string, segs: string[]) => [`MSH|^~\\&|ADT|HOSP|EHR|HOSP|20240101120000||ADT^${type}|${id}|P|2.5.1`, "EVN|A01|20240101120000", ...segs].join("\r");
    const pid = (mrn: string, name: string) => `PID|1||${mrn}^^^HOSP&2.16.840.1.113883.19.5&ISO^MR||${name}||19800101|F`;
    for (const m of [msg("M1", "A01", [pid("OLD-1", "MERGE^ANNA"), "PV1|1|I"]), msg("M2", "A01", [pid("NEW-1", "MERGE^ANNA"), "PV1|1|I"]), msg("M3", "A40", [pid("NEW-1", "MERGE^ANNA"), "MRG|OLD-1^^^HOSP&2.16.840.1.113883.19.5&ISO^MR"])]) {
      const res = await t.fetch(`/fhir/r4/${t.orgId}`, { method: "POST", json: convertToFhir(m) });
      expect(res.status, await res.clone().text()).toBe(200);
    }
    const res = await t.fetch(`/fhir/r4/${t.orgId}/Patient?identifier=urn:oid:2.16.840.1.113883.19.5|OLD-1`);
    const b = (await res.json()) as Bundle;
    const old = b.entry!.find((e) => e.search?.mode === "match")!.resource as { link?: { type: string; other: { reference: string } }[] };
    expect(old.link?.[0]?.type).toBe("replaced-by");
    const included = b.entry!.filter((e) => e.search?.mode === "include").map((e) => e.resource!);
    expect(included.map((r) => `Patient/${r.id}`)).toEqual([old.link![0]!.other.reference]);
    expect(b.total).toBe(1);
  });
});
