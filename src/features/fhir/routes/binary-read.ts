// Binary read in its native format (FHIR R4 http.html#binary; IHE MHD ITI-68 Retrieve Document):
// an Accept naming no FHIR type gets the document's own bytes with its own content type, as
// HAPI and Medplum answer. A FHIR JSON Accept, `_format` or no Accept at all gets the Binary
// resource (this store's clients read it that way); an Accept that neither FHIR JSON nor the
// document's type satisfies is 406.
import { parseAccept } from "hono/utils/accept";
import { notAcceptable } from "../../../platform/errors";
import type { Resource } from "../port";

// Plain application/xml and text/xml stay the document's own types (a CDA document is one).
const FHIR_TYPE = /^application\/(fhir\+json|json\+fhir|json|fhir\+xml|xml\+fhir)$/i;

/** How to answer a Binary read: the resource (FHIR JSON or XML), or its raw bytes. */
export function binaryRepresentation(accept: string | undefined, format: string | undefined): "resource" | "raw" {
  if (format || !accept?.trim()) return "resource";
  const ranges = parseAccept(accept).filter((r) => r.q > 0);
  return ranges.some((r) => FHIR_TYPE.test(r.type)) ? "resource" : "raw";
}

/** Whether one of the Accept ranges (type/subtype, type/*, *\/*) admits `contentType`. */
export function acceptsType(accept: string, contentType: string): boolean {
  const [type, subtype] = contentType.split(";")[0]!.trim().toLowerCase().split("/");
  return parseAccept(accept).some((r) => {
    if (r.q <= 0) return false;
    const [t, s] = r.type.toLowerCase().split("/");
    return (t === "*" || t === type) && (s === "*" || s === subtype);
  });
}

/** The raw document of a Binary read with `accept`; 406 when Accept admits neither its type nor FHIR JSON. */
export function rawBinary(binary: Resource, accept: string): { contentType: string; bytes: Uint8Array<ArrayBuffer> } {
  const contentType = typeof binary.contentType === "string" && binary.contentType ? binary.contentType : "application/octet-stream";
  if (!acceptsType(accept, contentType)) throw notAcceptable(`Binary/${binary.id} is ${contentType}; Accept "${accept}" admits neither it nor a FHIR format`);
  const data = typeof binary.data === "string" ? binary.data : "";
  return { contentType, bytes: Uint8Array.from(atob(data), (c) => c.charCodeAt(0)) };
}
