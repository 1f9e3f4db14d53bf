// An MHD ITI-65 Provide Document Bundle (Comprehensive by default) for tests: a SubmissionSet,
// one DocumentReference and its Binary, with the right size and hash, each carrying what its
// profile requires (the SubmissionSet's sourceId and designationType, the DocumentReference's
// language, creation and contained sourcePatientInfo); helpers to send it.
import type { Bundle, BundleEntry, Resource } from "../../../../src/features/fhir/port";
import { expect } from "vitest";
import type { Tenant } from "../../../support/tenants";

const BASE = "https://profiles.ihe.net/ITI/MHD/StructureDefinition/";
export const TEXT = "%PDF-1.4 an MHD test document";

export async function sha1(content: string | Uint8Array): Promise<string> {
  const bytes = typeof content === "string" ? new TextEncoder().encode(content) : new Uint8Array(content);
  return toBase64(new Uint8Array(await crypto.subtle.digest("SHA-1", bytes)));
}

/** Base64 in slices: String.fromCharCode(...bytes) overflows the stack on large documents. */
export function toBase64(bytes: Uint8Array): string {
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

const coding = (system: string, code: string) => ({ coding: [{ system, code }] });

export async function provideBundle(patientRef: string, opts: { option?: "Comprehensive" | "Minimal" | "UnContained.Comprehensive"; n?: string; bytes?: Uint8Array; contentType?: string } = {},
): Promise<Bundle & { entry: BundleEntry[] }> {
  const n = opts.n ?? crypto.randomUUID();
  const bytes = opts.bytes ?? new TextEncoder().encode(TEXT);
  const contentType = opts.contentType ?? "application/pdf";
  const doc: Resource = {
    resourceType: "DocumentReference",
    masterIdentifier: { system: "urn:ietf:rfc:3986", value: `urn:oid:1.2.3.${n}` },
    status: "current",
    type: coding("http://loinc.org", "34133-9"),
    category: [coding("http://loinc.org", "11488-4")],
    subject: { reference: patientRef },
    date: "2024-01-02T10:00:00Z",
    securityLabel: [coding("http://terminology.hl7.org/CodeSystem/v3-Confidentiality", "N")],
    contained: [{ resourceType: "Patient", id: "source-patient", identifier: [{ system: "urn:oid:1.2.3.99", value: `MRN-${n}` }], name: [{ family: "Source" }] }],
    content: [
      {
        attachment: { contentType, language: "en", url: `urn:uuid:bin-${n}`, size: bytes.length, hash: await sha1(bytes), creation: "2024-01-02T09:00:00Z" },
        format: { system: "http://ihe.net/fhir/ihe.formatcode.fhir/CodeSystem/formatcode", code: "urn:ihe:iti:xds:2017:mimeTypeSufficient" },
      },
    ],
    context: { facilityType: coding("http://snomed.info/sct", "22232009"), practiceSetting: coding("http://snomed.info/sct", "394802001"), sourcePatientInfo: { reference: "#source-patient" } },
  };
  return {
    resourceType: "Bundle",
    meta: { profile: [`${BASE}IHE.MHD.${opts.option ?? "Comprehensive"}.ProvideBundle`] },
    type: "transaction",
    entry: [
      {
        fullUrl: `urn:uuid:ss-${n}`,
        resource: {
          resourceType: "List",
          extension: [
            { url: `${BASE}ihe-sourceId`, valueIdentifier: { system: "urn:ietf:rfc:3986", value: "urn:oid:1.2.3.4" } },
            { url: `${BASE}ihe-designationType`, valueCodeableConcept: coding("http://snomed.info/sct", "225728007") },
          ],
          identifier: [{ system: "urn:ietf:rfc:3986", value: `urn:oid:1.2.4.${n}` }],
          status: "current",
          mode: "working",
          code: coding("https://profiles.ihe.net/ITI/MHD/CodeSystem/MHDlistTypes", "submissionset"),
          subject: { reference: patientRef },
          date: "2024-01-02T10:00:00Z",
          entry: [{ item: { reference: `urn:uuid:doc-${n}` } }],
        },
        request: { method: "POST", url: "List" },
      },
      { fullUrl: `urn:uuid:doc-${n}`, resource: doc, request: { method: "POST", url: "DocumentReference" } },
      { fullUrl: `urn:uuid:bin-${n}`, resource: { resourceType: "Binary", contentType, data: toBase64(bytes) }, request: { method: "POST", url: "Binary" } },
    ],
  };
}

export type Doc = Resource & { subject?: { reference: string }; relatesTo?: unknown; content: { attachment: { size?: number; hash?: string } }[] };
export const docOf = (b: Bundle & { entry: BundleEntry[] }) => b.entry[1]!.resource as Doc;
export const setOf = (b: Bundle & { entry: BundleEntry[] }) => b.entry[0]!.resource as Resource & { subject?: { reference: string } };

export async function provide(t: Tenant, bundle: Bundle) {
  const res = await t.fetch(`/fhir/r4/${t.orgId}`, { method: "POST", json: bundle });
  return { status: res.status, body: (await res.json()) as Bundle & { issue?: { details: { coding: { code: string }[] }; diagnostics: string }[] } };
}

/** The Comprehensive codes an mhd.provide_document node's config needs (XDS type, class, facility, practice setting; the document's language). */
export const COMPREHENSIVE = {
  language: "en",
  type: { system: "http://loinc.org", code: "18842-5" },
  category: { system: "http://loinc.org", code: "11488-4" },
  facility_type: { system: "http://snomed.info/sct", code: "22232009" },
  practice_setting: { system: "http://snomed.info/sct", code: "394802001" },
};

/** An accepted ITI-65: 200 with a transaction-response answering the SubmissionSet, DocumentReference and Binary in request order. */
export function expectProvided(r: { status: number; body: Bundle }): void {
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  expect(r.body.type).toBe("transaction-response");
  expect(r.body.entry!.map((e) => [e.response!.status.slice(0, 3), e.response!.location!.split("/")[0]])).toEqual([
    ["201", "List"],
    ["201", "DocumentReference"],
    ["201", "Binary"],
  ]);
}
