// The FHIR endpoint in XML (R4 http.html#mime-type): bodies in application/fhir+xml (and
// application/xml, text/xml) on create, update, transaction and operations, stored as their JSON
// twins; answers in XML by _format, Accept or the body's own format, refusals included; JSON the
// default; 415, 400 and 406 where the spec says; another organization sees nothing.
import { describe, expect, it } from "vitest";
import type { Bundle, Resource } from "../../src/features/fhir/port";
import { resourceFromXml, resourceToXml } from "../../src/features/fhir/xml";
import { call, createTenant, type Tenant } from "../support/tenants";
import { post } from "./support";

const FHIR_XML = "application/fhir+xml";
const PATIENT_XML = `<?xml version="1.0" encoding="UTF-8"?>
<Patient xmlns="http://hl7.org/fhir">
  <!-- written by hand, as an XML client would -->
  <identifier><system value="urn:oid:1.2.36.146.595.217.0.1"/><value value="12345"/></identifier>
  <active value="true"/>
  <name><use value="official"/><family value="Chalmers"/><given value="Peter"/><given value="James"/></name>
  <gender value="male"/>
  <birthDate value="1974-12-25"><extension url="http://hl7.org/fhir/StructureDefinition/patient-birthTime"><valueDateTime value="1974-12-25T14:35:45-05:00"/></extension></birthDate>
</Patient>`;

const xmlOf = async (res: Response) => resourceFromXml(await res.text());
const sendXml = (t: Tenant, path: string, body: string, init: RequestInit = {}) =>
  t.fetch(`/fhir/r4/${t.orgId}${path}`, { method: "POST", ...init, headers: { "content-type": FHIR_XML, ...(init.headers as Record<string, string>) }, body });
const issuesOf = (r: Resource) => (r.issue as { diagnostics: string }[]).map((i) => i.diagnostics).join(" ");

describe("FHIR XML on the REST API", () => {
  it("creates and updates from XML, answers in the format asked for, JSON by default", async () => {
    const t = await createTenant();
    const created = await sendXml(t, "/Patient", PATIENT_XML);
    expect(created.status).toBe(201);
    // No Accept: the answer is in the body's format.
    expect(created.headers.get("content-type")).toBe("application/fhir+xml; charset=utf-8");
    const patient = await xmlOf(created);
    expect(patient).toMatchObject({ resourceType: "Patient", active: true, name: [{ family: "Chalmers", given: ["Peter", "James"] }], _birthDate: { extension: [{ valueDateTime: "1974-12-25T14:35:45-05:00" }] } });
    const path = `/fhir/r4/${t.orgId}/Patient/${patient.id}`;

    const json = await t.fetch(path);
    expect(json.headers.get("content-type")).toBe("application/fhir+json; charset=utf-8");
    expect(await json.json()).toEqual(patient);
    for (const [query, accept, type] of [
      ["", FHIR_XML, FHIR_XML],
      ["?_format=xml", undefined, FHIR_XML],
      ["?_format=application/fhir+xml", undefined, FHIR_XML],
      ["?_format=application%2Ffhir%2Bxml", "application/fhir+json", FHIR_XML],
      ["", "application/xml", "application/xml"],
      ["", "text/xml", "text/xml"],
      ["", "application/fhir+json;q=0.5, application/fhir+xml", FHIR_XML],
      ["?_format=json", FHIR_XML, "application/fhir+json"],
    ] as const) {
      const res = await t.fetch(`${path}${query}`, accept ? { headers: { accept } } : {});
      expect(res.status, `${query} ${accept}`).toBe(200);
      expect(res.headers.get("content-type"), `${query} ${accept}`).toBe(`${type}; charset=utf-8`);
      expect(type.endsWith("json") ? await res.json() : await xmlOf(res)).toEqual(patient);
    }
    expect((await t.fetch(path, { headers: { accept: FHIR_XML } })).headers.get("etag")).toBe(`W/"${patient.meta!.versionId}"`);

    const updated = await t.fetch(path, { method: "PUT", headers: { "content-type": "text/xml", accept: "application/fhir+json" }, body: resourceToXml({ ...patient, gender: "other" }) });
    expect(updated.status).toBe(200);
    expect(await updated.json()).toMatchObject({ gender: "other", meta: { versionId: "2" } });
  });

  it("runs transactions and searches in XML", async () => {
    const t = await createTenant();
    const bundle = {
      resourceType: "Bundle",
      type: "transaction",
      entry: [
        { fullUrl: "urn:uuid:p", resource: { resourceType: "Patient", name: [{ family: "Xml" }] }, request: { method: "POST", url: "Patient" } },
        { resource: { resourceType: "Observation", status: "final", code: { text: "weight" }, subject: { reference: "urn:uuid:p" }, valueQuantity: { value: 72.5, unit: "kg" } }, request: { method: "POST", url: "Observation" } },
      ],
    };
    const res = await sendXml(t, "", resourceToXml(bundle), { headers: { accept: FHIR_XML } });
    expect(res.status).toBe(200);
    const response = (await xmlOf(res)) as Bundle;
    expect(response.type).toBe("transaction-response");
    expect(response.entry!.map((e) => e.response!.status.slice(0, 3))).toEqual(["201", "201"]);
    const found = (await xmlOf(await t.fetch(`/fhir/r4/${t.orgId}/Observation?subject.family=Xml&_format=xml`))) as Bundle;
    expect(found.type).toBe("searchset");
    expect(found.total).toBe(1);
    expect(found.entry![0]!.resource).toMatchObject({ resourceType: "Observation", valueQuantity: { value: 72.5, unit: "kg" } });
    // Paging links keep _format, so the next page is XML too.
    await post(t, { resourceType: "Patient", name: [{ family: "Xml" }] });
    const first = (await xmlOf(await t.fetch(`/fhir/r4/${t.orgId}/Patient?family=Xml&_count=1&_format=xml`))) as Bundle;
    const next = first.link!.find((l) => l.relation === "next")!.url;
    expect(next).toContain("_format=xml");
    const second = await t.fetch(new URL(next).pathname + new URL(next).search);
    expect(second.headers.get("content-type")).toContain(FHIR_XML);
    expect(((await xmlOf(second)) as Bundle).entry).toHaveLength(1);
  });

  it("takes operation bodies in XML and answers OperationOutcomes in XML", async () => {
    const t = await createTenant();
    const invalid = await sendXml(t, "/Patient/$validate", '<Patient xmlns="http://hl7.org/fhir"><gender value="robot"/></Patient>');
    expect(invalid.status).toBe(200);
    expect(invalid.headers.get("content-type")).toContain(FHIR_XML);
    expect(await xmlOf(invalid)).toMatchObject({ resourceType: "OperationOutcome", issue: [{ severity: "error", expression: ["Patient.gender"] }] });
    await post(t, { resourceType: "Patient", name: [{ family: "Matchmaker", given: ["Ann"] }], birthDate: "1980-01-01", gender: "female" });
    const parameters = resourceToXml({ resourceType: "Parameters", parameter: [{ name: "resource", resource: { resourceType: "Patient", name: [{ family: "Matchmaker", given: ["Ann"] }], birthDate: "1980-01-01", gender: "female" } }] });
    const matched = await sendXml(t, "/Patient/$match", parameters);
    expect(matched.status).toBe(200);
    const bundle = (await xmlOf(matched)) as Bundle;
    expect(bundle.entry![0]!.resource).toMatchObject({ name: [{ family: "Matchmaker" }] });
  });

  it("refuses other body types (415), XML that is not FHIR (400) and formats it cannot write (406)", async () => {
    const t = await createTenant();
    for (const type of ["text/plain", "application/x-www-form-urlencoded", "application/fhir+turtle"]) {
      const res = await t.fetch(`/fhir/r4/${t.orgId}/Patient`, { method: "POST", headers: { "content-type": type }, body: "<Patient/>" });
      expect(res.status, type).toBe(415);
      expect(((await res.json()) as Resource).resourceType).toBe("OperationOutcome");
    }
    const malformed = await sendXml(t, "/Patient", '<Patient xmlns="http://hl7.org/fhir"><active value="true"></Patient>');
    expect(malformed.status).toBe(400);
    expect(malformed.headers.get("content-type")).toContain(FHIR_XML);
    expect(issuesOf(await xmlOf(malformed))).toMatch(/not valid FHIR XML/);
    const unknown = await sendXml(t, "/Patient", '<Patient xmlns="http://hl7.org/fhir"><nickname value="Jim"/></Patient>', { headers: { accept: "application/fhir+json" } });
    expect(unknown.status).toBe(400);
    expect(issuesOf((await unknown.json()) as Resource)).toMatch(/Patient\.nickname: not an element R4 defines/);
    const entity = await sendXml(t, "/Patient", '<!DOCTYPE p [<!ENTITY e SYSTEM "file:///etc/passwd">]><Patient xmlns="http://hl7.org/fhir"><gender value="&e;"/></Patient>');
    expect(entity.status).toBe(400);
    expect(issuesOf(await xmlOf(entity))).toMatch(/DOCTYPE/);
    expect(await (await t.fetch(`/fhir/r4/${t.orgId}/Patient?_summary=count`)).json()).toMatchObject({ total: 0 });

    for (const format of ["turtle", "constructor", "toString"]) expect((await t.fetch(`/fhir/r4/${t.orgId}/Patient?_format=${format}`)).status, format).toBe(406);
    expect((await t.fetch(`/fhir/r4/${t.orgId}/Patient`, { headers: { accept: "text/turtle" } })).status).toBe(406);
    expect((await t.fetch(`/fhir/r4/${t.orgId}/Patient`, { headers: { accept: "text/html, */*;q=0.1" } })).status).toBe(200);
  });

  it("answers refusals in XML when asked: 404, 401 before authentication", async () => {
    const t = await createTenant();
    const missing = await t.fetch(`/fhir/r4/${t.orgId}/Patient/nobody?_format=xml`);
    expect(missing.status).toBe(404);
    expect(await xmlOf(missing)).toMatchObject({ resourceType: "OperationOutcome", issue: [{ severity: "error", code: "not-found" }] });
    const anonymous = await call(`/fhir/r4/${t.orgId}/Patient`, { headers: { accept: FHIR_XML } });
    expect(anonymous.status).toBe(401);
    expect((await xmlOf(anonymous)).resourceType).toBe("OperationOutcome");
  });

  it("publishes XML in the CapabilityStatement, itself available as XML", async () => {
    const res = await call("/fhir/r4/any-org/metadata?_format=xml");
    expect(res.status).toBe(200);
    const cs = await xmlOf(res);
    expect(cs.format).toEqual(["application/fhir+json", "json", "application/fhir+xml", "xml"]);
    expect(cs.patchFormat).toContain(FHIR_XML);
  });

  it("reads a Binary as an XML resource for application/fhir+xml, as its own bytes for plain XML", async () => {
    const t = await createTenant();
    const cda = '<ClinicalDocument xmlns="urn:hl7-org:v3"/>';
    const binary = await post(t, { resourceType: "Binary", contentType: "application/xml", data: btoa(cda) });
    const asResource = await t.fetch(`/fhir/r4/${t.orgId}/Binary/${binary.id}`, { headers: { accept: FHIR_XML } });
    expect(await xmlOf(asResource)).toMatchObject({ resourceType: "Binary", contentType: "application/xml", data: btoa(cda) });
    const raw = await t.fetch(`/fhir/r4/${t.orgId}/Binary/${binary.id}`, { headers: { accept: "application/xml" } });
    expect(raw.headers.get("content-type")).toBe("application/xml");
    expect(await raw.text()).toBe(cda);
  });

  it("keeps organizations apart in XML as in JSON", async () => {
    const a = await createTenant();
    const b = await createTenant();
    const patient = await xmlOf(await sendXml(a, "/Patient", PATIENT_XML));
    const theirs = await b.fetch(`/fhir/r4/${b.orgId}/Patient/${patient.id}`, { headers: { accept: FHIR_XML } });
    expect(theirs.status).toBe(404);
    expect((await xmlOf(theirs)).resourceType).toBe("OperationOutcome");
    expect(((await xmlOf(await b.fetch(`/fhir/r4/${b.orgId}/Patient?identifier=12345&_format=xml`))) as Bundle).total).toBe(0);
    // A's organization in the path with B's key is refused whatever the format.
    const crossed = await b.fetch(`/fhir/r4/${a.orgId}/Patient`, { method: "POST", headers: { "content-type": FHIR_XML, "x-organization-id": a.orgId }, body: PATIENT_XML });
    expect(crossed.status).toBeGreaterThanOrEqual(401);
    expect(crossed.status).toBeLessThan(404);
    expect(((await xmlOf(await a.fetch(`/fhir/r4/${a.orgId}/Patient?_format=xml`))) as Bundle).total).toBe(1);
  });
});
