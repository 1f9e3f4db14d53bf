// Builds an ITI-65 Provide Document Bundle for one document (the MHD publish node's): a
// SubmissionSet List (sourceId, and under Comprehensive its designationType), the
// DocumentReference with the option's required metadata (Comprehensive: language, creation and
// the patient as known at publication, contained as sourcePatientInfo), and the Binary holding the
// bytes, with attachment.size and the base64 SHA-1 hash computed from those bytes.
import type { Bundle, Resource } from "../../../platform/fhir-resource";
import { sizeAndHash } from "./document-bytes";
import { DESIGNATION_TYPE, MHD_PROFILES, SOURCE_ID } from "./provide-bundle";

export interface Coding {
  system: string;
  code: string;
  display?: string;
}

export interface DocumentToProvide {
  /** The patient reference (Patient/id, or an absolute URL on the recipient). */
  patient: string;
  /** The document's bytes, base64. */
  data: string;
  contentType: string;
  title?: string;
  option: "minimal" | "comprehensive";
  type?: Coding;
  category?: Coding;
  format?: Coding;
  facilityType?: Coding;
  practiceSetting?: Coding;
  confidentiality: Coding;
  /** When the document was created (defaults to now). */
  date?: string;
  /** The SubmissionSet's sourceId: the OID (urn:oid:…) of the system publishing it. */
  sourceId: string;
  /** The SubmissionSet's clinical code (XDS contentTypeCode); Comprehensive defaults it to the document's type. */
  designationType?: Coding;
  /** content.attachment.language (BCP-47). */
  language?: string;
  /** The patient as the publisher knows it now, kept as the contained sourcePatientInfo. */
  sourcePatient?: Resource;
}

/** The demographics XDS keeps as sourcePatientInfo, copied into a contained Patient (no id, meta or narrative of the original). */
function sourcePatientCopy(p: Resource): Resource {
  const keep = ["identifier", "name", "telecom", "gender", "birthDate", "address"] as const;
  return { resourceType: "Patient", id: "source-patient", ...Object.fromEntries(keep.flatMap((k) => (p[k] === undefined ? [] : [[k, p[k]]]))) };
}

const concept = (c: Coding | undefined) => (c ? { coding: [c] } : undefined);
const oid = () => `urn:uuid:${crypto.randomUUID()}`;
/** A UUID as an OID under the 2.25 arc (ITU-T X.667), as XDS uniqueIds and sourceIds are OIDs. */
const uuidOid = (uuid: string) => `urn:oid:2.25.${BigInt(`0x${uuid.replace(/-/g, "")}`)}`;

/** A stable sourceId for an organization publishing without one configured: a name-based UUID (version 8) of its id, as an OID. */
export async function organizationSourceId(orgId: string): Promise<string> {
  const bytes = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(`mhd-source-id:${orgId}`))).slice(0, 16);
  bytes[6] = (bytes[6]! & 0x0f) | 0x80;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  return uuidOid([...bytes].map((b) => b.toString(16).padStart(2, "0")).join(""));
}

export async function buildProvideBundle(doc: DocumentToProvide): Promise<Bundle> {
  const [set, ref, bin] = [oid(), oid(), oid()];
  const date = doc.date ?? new Date().toISOString();
  const { size, hash } = await sizeAndHash(doc.data);
  const listType = { system: "https://profiles.ihe.net/ITI/MHD/CodeSystem/MHDlistTypes", code: "submissionset" };
  const designation = doc.designationType ?? (doc.option === "comprehensive" ? doc.type : undefined);
  const documentReference = {
    resourceType: "DocumentReference",
    contained: doc.sourcePatient ? [sourcePatientCopy(doc.sourcePatient)] : undefined,
    masterIdentifier: { system: "urn:ietf:rfc:3986", value: oid() },
    status: "current",
    type: concept(doc.type),
    category: doc.category ? [concept(doc.category)] : undefined,
    subject: { reference: doc.patient },
    date,
    description: doc.title,
    securityLabel: [concept(doc.confidentiality)],
    content: [{ attachment: { contentType: doc.contentType, language: doc.language, url: bin, size, hash, title: doc.title, creation: date }, format: doc.format }],
    context:
      doc.facilityType || doc.practiceSetting || doc.sourcePatient
        ? { facilityType: concept(doc.facilityType), practiceSetting: concept(doc.practiceSetting), sourcePatientInfo: doc.sourcePatient ? { reference: "#source-patient" } : undefined }
        : undefined,
  };
  const extension = [{ url: SOURCE_ID, valueIdentifier: { system: "urn:ietf:rfc:3986", value: doc.sourceId } }, ...(designation ? [{ url: DESIGNATION_TYPE, valueCodeableConcept: concept(designation) }] : [])];
  return {
    resourceType: "Bundle",
    meta: { profile: [MHD_PROFILES[doc.option]] },
    type: "transaction",
    entry: [
      {
        fullUrl: set,
        resource: { resourceType: "List", extension, identifier: [{ type: { coding: [{ system: "https://profiles.ihe.net/ITI/MHD/CodeSystem/MHDIdentifierType", code: "uniqueId" }] }, system: "urn:ietf:rfc:3986", value: uuidOid(crypto.randomUUID()) }], status: "current", mode: "working", code: { coding: [listType] }, subject: { reference: doc.patient }, date, entry: [{ item: { reference: ref } }] },
        request: { method: "POST", url: "List" },
      },
      { fullUrl: ref, resource: JSON.parse(JSON.stringify(documentReference)), request: { method: "POST", url: "DocumentReference" } },
      { fullUrl: bin, resource: { resourceType: "Binary", contentType: doc.contentType, data: doc.data }, request: { method: "POST", url: "Binary" } },
    ],
  };
}
