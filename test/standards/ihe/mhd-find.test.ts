// MHD ITI-67 Find Document References and ITI-66 Find Document Lists: each parameter the
// profile requires, GET and POST, and tenancy.
import { describe, expect, it } from "vitest";
import type { Bundle } from "../../../src/features/fhir/port";
import { createTenant, type Tenant } from "../../support/tenants";
import { post } from "../../fhir/support";

const coding = (system: string, code: string) => ({ coding: [{ system, code }] });

async function ids(t: Tenant, query: string): Promise<string[]> {
  const res = await t.fetch(`/fhir/r4/${t.orgId}/${query}`);
  const body = (await res.json()) as Bundle;
  expect(res.status, `${query}: ${JSON.stringify(body)}`).toBe(200);
  return (body.entry ?? []).filter((e) => e.search?.mode === "match").map((e) => e.resource!.id!).sort();
}

async function seed(t: Tenant) {
  const patient = await post(t, { resourceType: "Patient", identifier: [{ system: "urn:oid:1.2.3", value: "P-1" }], name: [{ family: "Docs" }] });
  const other = await post(t, { resourceType: "Patient", identifier: [{ system: "urn:oid:1.2.3", value: "P-2" }], name: [{ family: "Other" }] });
  const author = await post(t, { resourceType: "Practitioner", name: [{ family: "Writer", given: ["Ann"] }] });
  const encounter = await post(t, { resourceType: "Encounter", status: "finished", class: { code: "AMB" }, subject: { reference: `Patient/${patient.id}` } });
  const doc = await post(t, {
    resourceType: "DocumentReference",
    masterIdentifier: { system: "urn:ietf:rfc:3986", value: "urn:oid:9.8.7.1" },
    status: "current",
    type: coding("http://loinc.org", "34133-9"),
    category: [coding("http://loinc.org", "11488-4")],
    subject: { reference: `Patient/${patient.id}` },
    date: "2024-01-02T10:00:00Z",
    author: [{ reference: `Practitioner/${author.id}` }],
    securityLabel: [coding("http://terminology.hl7.org/CodeSystem/v3-Confidentiality", "N")],
    content: [{ attachment: { contentType: "application/pdf", url: "http://example.org/doc.pdf", creation: "2023-12-30T08:00:00Z" }, format: { system: "http://ihe.net/fhir/ihe.formatcode.fhir/CodeSystem/formatcode", code: "urn:ihe:iti:xds:2017:mimeTypeSufficient" } }],
    context: {
      event: [coding("http://snomed.info/sct", "73761001")],
      period: { start: "2023-12-01", end: "2023-12-31" },
      facilityType: coding("http://snomed.info/sct", "22232009"),
      practiceSetting: coding("http://snomed.info/sct", "394802001"),
      related: [{ reference: `Encounter/${encounter.id}` }],
    },
  });
  const old = await post(t, { resourceType: "DocumentReference", status: "superseded", subject: { reference: `Patient/${patient.id}` }, content: [{ attachment: { url: "http://example.org/old.pdf" } }] });
  const theirs = await post(t, { resourceType: "DocumentReference", status: "current", subject: { reference: `Patient/${other.id}` }, content: [{ attachment: { url: "http://example.org/x.pdf" } }] });
  const list = await post(t, {
    resourceType: "List",
    status: "current",
    mode: "working",
    identifier: [{ system: "urn:ietf:rfc:3986", value: "urn:oid:9.8.7.2" }],
    code: coding("https://profiles.ihe.net/ITI/MHD/CodeSystem/MHDlistTypes", "submissionset"),
    subject: { reference: `Patient/${patient.id}` },
    date: "2024-01-02T10:00:00Z",
    entry: [{ item: { reference: `DocumentReference/${doc.id}` } }],
  });
  return { patient: patient.id, doc: doc.id, old: old.id, theirs: theirs.id, list: list.id, author: author.id, encounter: encounter.id };
}

describe("MHD ITI-67 and ITI-66", () => {
  it("finds DocumentReferences by every required parameter", async () => {
    const t = await createTenant();
    const s = await seed(t);
    const P = `patient=Patient/${s.patient}`;
    const cases: [string, string[]][] = [
      [`${P}&status=current`, [s.doc]],
      [`${P}&status=superseded`, [s.old]],
      [`${P}&status=current,superseded`, [s.doc, s.old].sort()],
      ["patient.identifier=urn:oid:1.2.3|P-1&status=current", [s.doc]],
      [`${P}&status=current&author.given=Ann`, [s.doc]],
      [`${P}&status=current&author.family=writer`, [s.doc]],
      [`${P}&status=current&category=http://loinc.org|11488-4`, [s.doc]],
      [`${P}&status=current&type=http://loinc.org|34133-9`, [s.doc]],
      [`${P}&status=current&creation=ge2023-12-30`, [s.doc]],
      [`${P}&status=current&creation=lt2023-12-01`, []],
      [`${P}&status=current&date=ge2024-01-01`, [s.doc]],
      [`${P}&status=current&event=73761001`, [s.doc]],
      [`${P}&status=current&facility=22232009`, [s.doc]],
      [`${P}&status=current&setting=394802001`, [s.doc]],
      [`${P}&status=current&format=urn:ihe:iti:xds:2017:mimeTypeSufficient`, [s.doc]],
      [`${P}&status=current&identifier=urn:ietf:rfc:3986|urn:oid:9.8.7.1`, [s.doc]],
      [`${P}&status=current&period=ge2023-12-15`, [s.doc]],
      [`${P}&status=current&period=lt2023-12-15`, [s.doc]],
      [`${P}&status=current&period=ge2024-02-01`, []],
      [`${P}&status=current&related=Encounter/${s.encounter}`, [s.doc]],
      [`${P}&status=current&security-label=N`, [s.doc]],
    ];
    for (const [q, expected] of cases) expect(await ids(t, `DocumentReference?${q}`), q).toEqual(expected);
    const posted = await t.fetch(`/fhir/r4/${t.orgId}/DocumentReference/_search`, { method: "POST", body: `${P}&status=current`, headers: { "content-type": "application/x-www-form-urlencoded" } });
    expect(((await posted.json()) as Bundle).entry!.map((e) => e.resource!.id)).toEqual([s.doc]);
  });

  it("finds SubmissionSet Lists by patient, code, status, identifier and date", async () => {
    const t = await createTenant();
    const s = await seed(t);
    const P = `patient=Patient/${s.patient}&code=submissionset&status=current`;
    for (const q of [P, "patient.identifier=urn:oid:1.2.3|P-1&code=submissionset&status=current", `${P}&identifier=urn:ietf:rfc:3986|urn:oid:9.8.7.2`, `${P}&date=ge2024-01-01`]) {
      expect(await ids(t, `List?${q}`), q).toEqual([s.list]);
    }
    expect(await ids(t, `List?${P}&code=folder`)).toEqual([]);
  });

  it("finds Lists by designationType, sourceId, source and source.given/family (ITI-66), declared in the CapabilityStatement", async () => {
    const t = await createTenant();
    const s = await seed(t);
    const mhd = "https://profiles.ihe.net/ITI/MHD/StructureDefinition/";
    const set = await post(t, {
      resourceType: "List",
      status: "current",
      mode: "working",
      extension: [
        { url: `${mhd}ihe-designationType`, valueCodeableConcept: coding("http://loinc.org", "57133-1") },
        { url: `${mhd}ihe-sourceId`, valueIdentifier: { system: "urn:ietf:rfc:3986", value: "urn:oid:1.3.6.1.4.1.21367.9" } },
      ],
      code: coding("https://profiles.ihe.net/ITI/MHD/CodeSystem/MHDlistTypes", "submissionset"),
      subject: { reference: `Patient/${s.patient}` },
      source: { reference: `Practitioner/${s.author}` },
      date: "2024-02-01T10:00:00Z",
      entry: [{ item: { reference: `DocumentReference/${s.doc}` } }],
    });
    const folder = await post(t, {
      resourceType: "List",
      status: "current",
      mode: "working",
      identifier: [{ system: "urn:ietf:rfc:3986", value: "urn:oid:9.8.7.3" }],
      extension: [{ url: `${mhd}ihe-designationType`, valueCodeableConcept: coding("http://snomed.info/sct", "118185001") }],
      code: coding("https://profiles.ihe.net/ITI/MHD/CodeSystem/MHDlistTypes", "folder"),
      subject: { reference: `Patient/${s.patient}` },
      entry: [{ item: { reference: `DocumentReference/${s.doc}` } }],
    });
    const P = `patient=Patient/${s.patient}&status=current`;
    const cases: [string, string[]][] = [
      [`${P}&code=submissionset&designationType=http://loinc.org|57133-1`, [set.id]],
      [`${P}&code=submissionset&designationType=57133-1`, [set.id]],
      [`${P}&code=submissionset&designationType=http://loinc.org|11111-1`, []],
      [`${P}&code=folder&designationType=http://snomed.info/sct|118185001`, [folder.id]],
      [`${P}&designationType=57133-1,118185001`, [set.id, folder.id].sort()],
      [`${P}&code=submissionset&sourceId=urn:ietf:rfc:3986|urn:oid:1.3.6.1.4.1.21367.9`, [set.id]],
      [`${P}&code=submissionset&sourceId=urn:oid:1.3.6.1.4.1.21367.0`, []],
      [`${P}&code=submissionset&source=Practitioner/${s.author}`, [set.id]],
      [`${P}&code=submissionset&source:Practitioner.given=Ann&source:Practitioner.family=Writer`, [set.id]],
      [`${P}&code=submissionset&source:Practitioner.family=Nobody`, []],
      [`${P}&code=submissionset&source.given=Ann&source.family=writer`, [set.id]],
    ];
    for (const [q, expected] of cases) expect(await ids(t, `List?${q}`), q).toEqual(expected);
    const posted = await t.fetch(`/fhir/r4/${t.orgId}/List/_search`, { method: "POST", body: `${P}&code=submissionset&designationType=http://loinc.org|57133-1`, headers: { "content-type": "application/x-www-form-urlencoded" } });
    expect(((await posted.json()) as Bundle).entry!.map((e) => e.resource!.id)).toEqual([set.id]);
    // Another organization's identical query finds nothing.
    const other = await createTenant();
    expect(await ids(other, `List?${P}&designationType=57133-1`)).toEqual([]);

    const cs = (await (await t.fetch(`/fhir/r4/${t.orgId}/metadata`)).json()) as { rest: { resource: { type: string; searchParam: { name: string; definition?: string; type: string }[] }[] }[] };
    const list = cs.rest[0]!.resource.find((r) => r.type === "List")!;
    const byName = new Map(list.searchParam.map((p) => [p.name, p]));
    expect(byName.get("designationType")).toMatchObject({ type: "token", definition: "https://profiles.ihe.net/ITI/MHD/SearchParameter/List-DesignationType" });
    expect(byName.get("sourceId")).toMatchObject({ type: "token", definition: "https://profiles.ihe.net/ITI/MHD/SearchParameter/List-SourceId" });
    expect(byName.get("source")).toMatchObject({ type: "reference" });
  });

  it("refuses an ITI-66 query (code submissionset or folder) without patient or status, keeps plain List searches", async () => {
    const t = await createTenant();
    const s = await seed(t);
    const refused = async (query: string, missing: string[], init?: RequestInit) => {
      const res = await t.fetch(`/fhir/r4/${t.orgId}/${query}`, init);
      const body = (await res.json()) as { resourceType: string; issue: { code: string; diagnostics: string }[] };
      expect(res.status, query).toBe(400);
      expect(body.resourceType).toBe("OperationOutcome");
      expect(body.issue.map((i) => i.code)).toEqual(missing.map(() => "required"));
      expect(body.issue.map((i) => i.diagnostics.replace(/.* requires /, ""))).toEqual(missing);
    };
    await refused("List?code=submissionset&status=current", ["patient or patient.identifier"]);
    await refused(`List?code=submissionset&patient=Patient/${s.patient}`, ["status"]);
    await refused("List?code=folder", ["patient or patient.identifier", "status"]);
    await refused("List?code=https://profiles.ihe.net/ITI/MHD/CodeSystem/MHDlistTypes|submissionset&status=current", ["patient or patient.identifier"]);
    await refused("List?code=urn:x|other,submissionset&patient.identifier=urn:oid:1.2.3|P-1", ["status"]);
    await refused("List/_search", ["status"], { method: "POST", body: `code=submissionset&patient=Patient/${s.patient}`, headers: { "content-type": "application/x-www-form-urlencoded" } });
    // With what ITI-66 requires (modifiers allowed), the query answers; without an MHD list type it is plain FHIR search.
    expect(await ids(t, `List?code=submissionset&patient:Patient=Patient/${s.patient}&status=current`)).toEqual([s.list]);
    expect(await ids(t, "List?code=submissionset&patient.identifier=urn:oid:1.2.3|P-1&status=current")).toEqual([s.list]);
    expect(await ids(t, `List?patient=Patient/${s.patient}`)).toEqual([s.list]);
    expect(await ids(t, "List?status=current")).toEqual([s.list]);
    expect(await ids(t, "List?code=urn:x|other")).toEqual([]);
    // Another organization's ITI-66 query is refused the same way and finds nothing when complete.
    const other = await createTenant();
    expect((await other.fetch(`/fhir/r4/${other.orgId}/List?code=submissionset`)).status).toBe(400);
    expect(await ids(other, "List?code=submissionset&patient.identifier=urn:oid:1.2.3|P-1&status=current")).toEqual([]);
  });

  it("never finds another organization's documents", async () => {
    const a = await createTenant();
    const b = await createTenant();
    const s = await seed(a);
    expect(await ids(b, `DocumentReference?patient=Patient/${s.patient}&status=current`)).toEqual([]);
    expect(await ids(b, "DocumentReference?patient.identifier=urn:oid:1.2.3|P-1&status=current")).toEqual([]);
  });
});
