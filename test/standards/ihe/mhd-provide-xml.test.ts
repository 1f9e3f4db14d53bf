// MHD ITI-65 in FHIR XML (the Document Recipient accepts application/fhir+xml as well as JSON):
// a hand-written Minimal bundle and a Comprehensive one are accepted and stored as their JSON twins
// are; broken bundles are refused with the same XDS codes as in JSON, in an XML OperationOutcome,
// with nothing stored; another organization's patient is unknown.
import { describe, expect, it } from "vitest";
import type { Bundle, Resource } from "../../../src/features/fhir/port";
import { resourceFromXml, resourceToXml } from "../../../src/features/fhir/xml";
import minimalXml from "../../fixtures/fhir-xml/mhd-minimal-provide-bundle.xml?raw";
import { createTenant, type Tenant } from "../../support/tenants";
import { post } from "../../fhir/support";
import { docOf, expectProvided, provide, provideBundle, setOf, TEXT } from "./support/mhd-bundle";

const provideXml = async (t: Tenant, xml: string) => {
  const res = await t.fetch(`/fhir/r4/${t.orgId}`, { method: "POST", headers: { "content-type": "application/fhir+xml", accept: "application/fhir+xml" }, body: xml });
  expect(res.headers.get("content-type")).toMatch(/^application\/fhir\+xml/);
  return { status: res.status, body: resourceFromXml(await res.text()) as Bundle & { issue?: { details: { coding: { code: string }[] } }[] } };
};
const count = async (t: Tenant, type: string) => ((await (await t.fetch(`/fhir/r4/${t.orgId}/${type}?_summary=count`)).json()) as Bundle).total;
const stored = async (t: Tenant, type: string) => ((await (await t.fetch(`/fhir/r4/${t.orgId}/${type}`)).json()) as Bundle).entry!.map((e) => e.resource!);
/** What the store made of a resource, without what differs between two organizations and two writes. */
const comparable = (r: Resource) => JSON.parse(JSON.stringify(r, (k, v) => (["id", "meta", "reference", "url", "masterIdentifier", "identifier"].includes(k) ? undefined : v)));

describe("MHD ITI-65 in FHIR XML", () => {
  it("accepts a hand-written Minimal bundle in XML, answering in request order", async () => {
    const t = await createTenant();
    const p = await post(t, { resourceType: "Patient", name: [{ family: "Xml" }] });
    const xml = minimalXml.replaceAll("PATIENT_REF", `Patient/${p.id}`).replaceAll("UNIQUE", crypto.randomUUID().replace(/-/g, ""));
    const ok = await provideXml(t, xml);
    expectProvided(ok);
    const [doc] = await stored(t, "DocumentReference");
    const url = (doc as unknown as { content: { attachment: { url: string } }[] }).content[0]!.attachment.url;
    const bytes = await t.fetch(new URL(url).pathname, { headers: { accept: "text/plain" } });
    expect(await bytes.text()).toBe("Minimal MHD document, sent as FHIR XML.");
  });

  it("stores a Comprehensive bundle sent as XML exactly as its JSON twin", async () => {
    const [x, j] = [await createTenant(), await createTenant()];
    const [px, pj] = [await post(x, { resourceType: "Patient", name: [{ family: "Twin" }] }), await post(j, { resourceType: "Patient", name: [{ family: "Twin" }] })];
    const viaXml = await provideXml(x, resourceToXml(await provideBundle(`Patient/${px.id}`)));
    expect(viaXml.status, JSON.stringify(viaXml.body)).toBe(200);
    expect((await provide(j, await provideBundle(`Patient/${pj.id}`))).status).toBe(200);
    for (const type of ["List", "DocumentReference", "Binary"]) {
      const [fromXml, fromJson] = [await stored(x, type), await stored(j, type)];
      expect(fromXml.length, type).toBe(1);
      expect(fromXml.map(comparable), type).toEqual(fromJson.map(comparable));
    }
  });

  it("refuses broken bundles in XML with the XDS codes of JSON, storing nothing", async () => {
    const t = await createTenant();
    const p = await post(t, { resourceType: "Patient", name: [{ family: "Broken" }] });
    const other = await createTenant();
    const theirs = await post(other, { resourceType: "Patient", name: [{ family: "Elsewhere" }] });
    const cases: [string, (b: Awaited<ReturnType<typeof provideBundle>>) => void][] = [
      ["XDSMissingDocument", (b) => b.entry.splice(2, 1)],
      [
        "XDSNonIdenticalHash",
        (b) => {
          docOf(b).content[0]!.attachment.hash = btoa("not the hash at all!");
        },
      ],
      [
        "XDSNonIdenticalSize",
        (b) => {
          docOf(b).content[0]!.attachment.size = TEXT.length + 1;
        },
      ],
      [
        "XDSRegistryMetadataError",
        (b) => {
          delete docOf(b).type;
        },
      ],
      [
        "XDSUnknownPatientId",
        (b) => {
          docOf(b).subject = { reference: `Patient/${theirs.id}` };
          setOf(b).subject = { reference: `Patient/${theirs.id}` };
        },
      ],
    ];
    for (const [code, breakIt] of cases) {
      const b = await provideBundle(`Patient/${p.id}`);
      breakIt(b);
      const json = await provide(t, structuredClone(b));
      const xml = await provideXml(t, resourceToXml(b));
      expect([xml.status, json.status], code).toEqual([400, 400]);
      expect(xml.body.resourceType).toBe("OperationOutcome");
      const codes = (r: typeof xml.body) => r.issue!.map((i) => i.details.coding[0]!.code);
      expect(codes(xml.body), code).toContain(code);
      expect(codes(xml.body)).toEqual(codes(json.body));
    }
    for (const type of ["DocumentReference", "List", "Binary"]) expect(await count(t, type), type).toBe(0);
    expect(await count(other, "DocumentReference")).toBe(0);
  });
});
