// MHD ITI-65 Provide Document Bundle: Comprehensive and Minimal bundles accepted with the
// transaction-response in request order; each rule violated once and refused with its XDS code
// and nothing stored; the replacement flow; another organization's patient is unknown.
import { describe, expect, it } from "vitest";
import type { Bundle, BundleEntry, Resource } from "../../../src/features/fhir/port";
import { createTenant, type Tenant } from "../../support/tenants";
import { post } from "../../fhir/support";

const BASE = "https://profiles.ihe.net/ITI/MHD/StructureDefinition/";
const TEXT = "%PDF-1.4 an MHD test document";
const DATA = btoa(TEXT);

async function sha1(text: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-1", new TextEncoder().encode(text)));
  return btoa(String.fromCharCode(...digest));
}

const coding = (system: string, code: string) => ({ coding: [{ system, code }] });

async function provideBundle(patientRef: string, opts: { option?: "Comprehensive" | "Minimal"; n?: string } = {}): Promise<Bundle & { entry: BundleEntry[] }> {
  const n = opts.n ?? crypto.randomUUID();
  const doc: Resource = {
    resourceType: "DocumentReference",
    masterIdentifier: { system: "urn:ietf:rfc:3986", value: `urn:oid:1.2.3.${n}` },
    status: "current",
    type: coding("http://loinc.org", "34133-9"),
    category: [coding("http://loinc.org", "11488-4")],
    subject: { reference: patientRef },
    date: "2024-01-02T10:00:00Z",
    securityLabel: [coding("http://terminology.hl7.org/CodeSystem/v3-Confidentiality", "N")],
    content: [{ attachment: { contentType: "application/pdf", url: `urn:uuid:bin-${n}`, size: TEXT.length, hash: await sha1(TEXT) }, format: { system: "http://ihe.net/fhir/ihe.formatcode.fhir/CodeSystem/formatcode", code: "urn:ihe:iti:xds:2017:mimeTypeSufficient" } }],
    context: { facilityType: coding("http://snomed.info/sct", "22232009"), practiceSetting: coding("http://snomed.info/sct", "394802001") },
  };
  return {
    resourceType: "Bundle",
    meta: { profile: [`${BASE}IHE.MHD.${opts.option ?? "Comprehensive"}.ProvideBundle`] },
    type: "transaction",
    entry: [
      {
        fullUrl: `urn:uuid:ss-${n}`,
        resource: { resourceType: "List", identifier: [{ system: "urn:ietf:rfc:3986", value: `urn:oid:1.2.4.${n}` }], status: "current", mode: "working", code: coding("https://profiles.ihe.net/ITI/MHD/CodeSystem/MHDlistTypes", "submissionset"), subject: { reference: patientRef }, date: "2024-01-02T10:00:00Z", entry: [{ item: { reference: `urn:uuid:doc-${n}` } }] },
        request: { method: "POST", url: "List" },
      },
      { fullUrl: `urn:uuid:doc-${n}`, resource: doc, request: { method: "POST", url: "DocumentReference" } },
      { fullUrl: `urn:uuid:bin-${n}`, resource: { resourceType: "Binary", contentType: "application/pdf", data: DATA }, request: { method: "POST", url: "Binary" } },
    ],
  };
}

type Doc = Resource & { subject?: { reference: string }; relatesTo?: unknown; content: { attachment: { size?: number; hash?: string } }[] };
const docOf = (b: Bundle & { entry: BundleEntry[] }) => b.entry[1]!.resource as Doc;
const setOf = (b: Bundle & { entry: BundleEntry[] }) => b.entry[0]!.resource as Resource & { subject?: { reference: string } };

async function provide(t: Tenant, bundle: Bundle) {
  const res = await t.fetch(`/fhir/r4/${t.orgId}`, { method: "POST", json: bundle });
  return { status: res.status, body: (await res.json()) as Bundle & { issue?: { details: { coding: { code: string }[] }; diagnostics: string }[] } };
}

const count = async (t: Tenant, type: string) => ((await (await t.fetch(`/fhir/r4/${t.orgId}/${type}?_summary=count`)).json()) as Bundle).total;

describe("MHD ITI-65 Provide Document Bundle", () => {
  it("accepts Comprehensive and Minimal bundles, answering in request order", async () => {
    const t = await createTenant();
    const p = await post(t, { resourceType: "Patient", name: [{ family: "Mhd" }] });
    const ok = await provide(t, await provideBundle(`Patient/${p.id}`));
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect(ok.body.type).toBe("transaction-response");
    expect(ok.body.entry!.map((e) => [e.response!.status.slice(0, 3), e.response!.location!.split("/")[0]])).toEqual([
      ["201", "List"],
      ["201", "DocumentReference"],
      ["201", "Binary"],
    ]);
    const minimal = await provideBundle(`Patient/${p.id}`, { option: "Minimal" });
    const doc = docOf(minimal) as Record<string, unknown>;
    for (const k of ["type", "category", "date", "securityLabel", "context"]) delete doc[k];
    expect((await provide(t, minimal)).status).toBe(200);
    expect(await count(t, "DocumentReference")).toBe(2);
  });

  it("refuses each broken rule with its XDS code and stores nothing", async () => {
    const t = await createTenant();
    const p = await post(t, { resourceType: "Patient", name: [{ family: "Mhd" }] });
    const ref = `Patient/${p.id}`;
    const cases: [string, MhdCase][] = [
      ["XDSRegistryMetadataError", (b) => b.entry.push(structuredClone({ ...b.entry[0]!, fullUrl: "urn:uuid:ss-2" }))],
      ["XDSRegistryMetadataError", (b) => b.entry.splice(1, 1)],
      ["XDSMissingDocument", (b) => b.entry.splice(2, 1)],
      [
        "XDSNonIdenticalSize",
        (b) => {
          docOf(b).content[0]!.attachment.size = 3;
        },
      ],
      [
        "XDSNonIdenticalHash",
        (b) => {
          docOf(b).content[0]!.attachment.hash = btoa("not the hash at all!");
        },
      ],
      [
        "XDSUnknownPatientId",
        (b) => {
          docOf(b).subject = { reference: "Patient/nobody" };
          setOf(b).subject = { reference: "Patient/nobody" };
        },
      ],
      [
        "XDSPatientIdDoesNotMatch",
        (b) => {
          setOf(b).subject = { reference: "Patient/someone-else" };
        },
      ],
      ["XDSRegistryMetadataError", (b) => delete docOf(b).type],
      [
        "XDSRegistryMetadataError",
        (b) => {
          docOf(b).relatesTo = [{ code: "replaces", target: { reference: "DocumentReference/old" } }];
        },
      ],
      [
        "XDSRegistryMetadataError",
        (b) => {
          b.type = "batch";
        },
      ],
    ];
    for (const [code, breakIt] of cases) {
      const b = await provideBundle(ref);
      breakIt(b);
      const r = await provide(t, b);
      expect(r.status, code).toBe(400);
      expect(r.body.resourceType).toBe("OperationOutcome");
      expect(r.body.issue!.map((i) => i.details.coding[0]!.code), code).toContain(code);
    }
    expect(await count(t, "DocumentReference")).toBe(0);
    expect(await count(t, "List")).toBe(0);
  });

  it("replaces a document: the new one relatesTo the old, marked superseded in the same transaction", async () => {
    const t = await createTenant();
    const p = await post(t, { resourceType: "Patient", name: [{ family: "Mhd" }] });
    const first = await provide(t, await provideBundle(`Patient/${p.id}`));
    const oldId = first.body.entry![1]!.response!.location!.split("/")[1]!;
    const old = (await (await t.fetch(`/fhir/r4/${t.orgId}/DocumentReference/${oldId}`)).json()) as Resource;
    const b = await provideBundle(`Patient/${p.id}`);
    docOf(b).relatesTo = [{ code: "replaces", target: { reference: `DocumentReference/${oldId}` } }];
    b.entry.push({ resource: { ...old, status: "superseded" }, request: { method: "PUT", url: `DocumentReference/${oldId}` } });
    const r = await provide(t, b);
    expect(r.status).toBe(200);
    expect(r.body.entry!.length).toBe(4);
    expect(((await (await t.fetch(`/fhir/r4/${t.orgId}/DocumentReference/${oldId}`)).json()) as Resource).status).toBe("superseded");
  });

  it("does not know another organization's patient", async () => {
    const a = await createTenant();
    const b = await createTenant();
    const p = await post(a, { resourceType: "Patient", name: [{ family: "A" }] });
    const r = await provide(b, await provideBundle(`Patient/${p.id}`));
    expect(r.status).toBe(400);
    expect(r.body.issue!.map((i) => i.details.coding[0]!.code)).toContain("XDSUnknownPatientId");
    expect(await count(b, "DocumentReference")).toBe(0);
  });
});

type MhdCase = (b: Bundle & { entry: BundleEntry[] }) => unknown;
