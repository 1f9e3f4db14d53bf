// Builds an ITI-65 Provide Document Bundle for one document (the MHD publish node's): a
// SubmissionSet List, the DocumentReference with the option's required metadata, and the Binary
// holding the bytes, with attachment.size and the base64 SHA-1 hash computed from those bytes.
import type { Bundle } from "../../../features/fhir/port";
import { sizeAndHash } from "./document-bytes";
import { MHD_PROFILES } from "./provide-bundle";

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
}

const concept = (c: Coding | undefined) => (c ? { coding: [c] } : undefined);
const oid = () => `urn:uuid:${crypto.randomUUID()}`;

export async function buildProvideBundle(doc: DocumentToProvide): Promise<Bundle> {
  const [set, ref, bin] = [oid(), oid(), oid()];
  const date = doc.date ?? new Date().toISOString();
  const { size, hash } = await sizeAndHash(doc.data);
  const listType = { system: "https://profiles.ihe.net/ITI/MHD/CodeSystem/MHDlistTypes", code: "submissionset" };
  const documentReference = {
    resourceType: "DocumentReference",
    masterIdentifier: { system: "urn:ietf:rfc:3986", value: oid() },
    status: "current",
    type: concept(doc.type),
    category: doc.category ? [concept(doc.category)] : undefined,
    subject: { reference: doc.patient },
    date,
    description: doc.title,
    securityLabel: [concept(doc.confidentiality)],
    content: [{ attachment: { contentType: doc.contentType, url: bin, size, hash, title: doc.title, creation: date }, format: doc.format }],
    context: doc.facilityType || doc.practiceSetting ? { facilityType: concept(doc.facilityType), practiceSetting: concept(doc.practiceSetting) } : undefined,
  };
  return {
    resourceType: "Bundle",
    meta: { profile: [MHD_PROFILES[doc.option]] },
    type: "transaction",
    entry: [
      {
        fullUrl: set,
        resource: { resourceType: "List", identifier: [{ use: "official", system: "urn:ietf:rfc:3986", value: oid() }], status: "current", mode: "working", code: { coding: [listType] }, subject: { reference: doc.patient }, date, entry: [{ item: { reference: ref } }] },
        request: { method: "POST", url: "List" },
      },
      { fullUrl: ref, resource: JSON.parse(JSON.stringify(documentReference)), request: { method: "POST", url: "DocumentReference" } },
      { fullUrl: bin, resource: { resourceType: "Binary", contentType: doc.contentType, data: doc.data }, request: { method: "POST", url: "Binary" } },
    ],
  };
}
