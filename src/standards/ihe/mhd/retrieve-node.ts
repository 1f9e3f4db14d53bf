// `mhd.retrieve_document`: ITI-68 Retrieve Document as a Document Consumer. Takes a
// DocumentReference (e.g. one `mhd.find_documents` found) and fetches its attachment.url, from
// the organization's own store or from a remote Document Responder through a FHIR connector (the
// URL must lie under the connector's endpoint: its credentials go nowhere else). It asks for the
// document's own type; a server that answers the Binary resource instead (FHIR JSON, as a plain
// FHIR server's Binary read does) is read too. The bytes are checked against attachment.size and
// attachment.hash when the DocumentReference carries them.
import { z } from "zod";
import type { FhirPort, Resource } from "../../../features/fhir";
import { NodeFailure } from "../../../features/pipelines";
import { defineNode } from "../../../features/pipelines";
import { fromBase64, sizeAndHash, toBase64 } from "./document-bytes";

const Attachment = z.object({ url: z.string().min(1), contentType: z.string().optional(), size: z.number().optional(), hash: z.string().optional() });
const RetrieveInput = z.union([
  z.object({ resourceType: z.literal("DocumentReference"), content: z.array(z.object({ attachment: Attachment })).min(1) }).describe("A DocumentReference"),
  z.object({ url: z.string().min(1), content_type: z.string().optional() }).describe("An attachment URL"),
]);

type Wanted = z.infer<typeof Attachment>;
interface Retrieved {
  contentType: string;
  bytes: Uint8Array<ArrayBuffer>;
}

const BINARY_PATH = /(?:^|\/)Binary\/([A-Za-z0-9\-.]{1,64})$/;

/** A Binary resource's document: its contentType and decoded data. */
function fromBinary(binary: Resource, url: string): Retrieved {
  if (binary.resourceType !== "Binary" || typeof binary.data !== "string") throw new NodeFailure("MHD_DOCUMENT_MISSING", `${url} holds no document data`);
  return { contentType: typeof binary.contentType === "string" ? binary.contentType : "application/octet-stream", bytes: fromBase64(binary.data) };
}

/** The organization's own Binary (`Binary/id`, or a URL under this org's FHIR base, absolute or not). */
async function retrieveLocally(port: FhirPort, orgId: string, url: string): Promise<Retrieved> {
  const id = BINARY_PATH.exec(url)?.[1];
  const own = url.startsWith("Binary/") || url.includes(`/fhir/r4/${orgId}/Binary/`);
  if (!id || !own) throw new NodeFailure("MHD_URL_NOT_LOCAL", `${url} is no Binary of this organization's store; set connector_id to retrieve from another Document Responder`);
  try {
    return fromBinary((await port.read("Binary", id)) as Resource, url);
  } catch (e) {
    if (e instanceof NodeFailure) throw e;
    const status = (e as { status?: number }).status;
    throw new NodeFailure("MHD_DOCUMENT_UNAVAILABLE", `${url}: ${(e as Error).message}`, { status: status ?? null });
  }
}

const mediaType = (contentType: string) => (contentType.split(";")[0] ?? "").trim().toLowerCase();

/** The peer's answer: the raw document, or the Binary resource as FHIR JSON. */
async function fromPeer(res: Response, url: string, wanted: string | undefined): Promise<Retrieved> {
  if (!res.ok) {
    const outcome = await res.json().catch(() => null);
    throw new NodeFailure("MHD_PEER_REFUSED", `ITI-68: the peer answered ${res.status} for ${url}`, { status: res.status, outcome });
  }
  const type = mediaType(res.headers.get("content-type") ?? "application/octet-stream");
  const bytes = new Uint8Array(await res.arrayBuffer());
  // application/json is the Binary resource unless the document itself is JSON.
  const fhirJson = type === "application/fhir+json" || (type === "application/json" && (wanted === undefined || mediaType(wanted) !== "application/json"));
  if (!fhirJson) return { contentType: type, bytes };
  let body: Resource;
  try {
    body = JSON.parse(new TextDecoder().decode(bytes)) as Resource;
  } catch {
    throw new NodeFailure("MHD_PEER_INVALID", `ITI-68: ${url} answered ${type} that is not JSON`);
  }
  return fromBinary(body, url);
}

/** attachment.size and attachment.hash (when given) against the bytes retrieved. */
async function checkIntegrity(wanted: Wanted, got: Retrieved): Promise<{ size: number; hash: string }> {
  const actual = await sizeAndHash(got.bytes);
  if (wanted.size !== undefined && wanted.size !== actual.size) throw new NodeFailure("MHD_DOCUMENT_INTEGRITY", `XDSNonIdenticalSize: attachment.size ${wanted.size}, retrieved ${actual.size} bytes`, { code: "XDSNonIdenticalSize" });
  if (wanted.hash !== undefined && wanted.hash !== actual.hash) throw new NodeFailure("MHD_DOCUMENT_INTEGRITY", `XDSNonIdenticalHash: attachment.hash ${wanted.hash}, retrieved SHA-1 ${actual.hash}`, { code: "XDSNonIdenticalHash" });
  return actual;
}

export const retrieveDocumentNode = defineNode({
  id: "mhd.retrieve_document",
  name: "MHD retrieve document",
  category: "healthcare",
  description:
    "Retrieves a document by IHE MHD ITI-68 from its DocumentReference's attachment.url, from the organization's store or another MHD Document Responder through a FHIR connector, and checks it against attachment.size and attachment.hash.",
  keywords: ["mhd", "ihe", "iti-68", "retrieve", "document", "binary", "download", "xds"],
  inputs: [{ name: "input", type: "json", description: "A DocumentReference (its first content's attachment), or { url, content_type? }" }],
  outputs: [{ name: "document", type: "json", description: "{ url, content_type, data (base64), size, hash (SHA-1, base64) }" }],
  config: z
    .object({ connector_id: z.string().min(1).optional().describe("A FHIR connector to the Document Responder the URL belongs to; the organization's own store when absent") })
    .strict(),
  documentation: {
    summary: "Connect mhd.find_documents' documents through a for-each (or pick one) to retrieve each document; a 410 from the responder (a superseded document under its policy) fails with MHD_PEER_REFUSED.",
    example: { config: {}, inputs: { input: { url: "Binary/example", content_type: "application/pdf" } } },
  },
  run: async (ctx) => {
    const parsed = RetrieveInput.safeParse(ctx.inputs.input);
    if (!parsed.success) throw new NodeFailure("MHD_INPUT_INVALID", "The input needs a DocumentReference with content.attachment.url, or { url }");
    const wanted: Wanted = "content" in parsed.data ? parsed.data.content[0]!.attachment : { url: parsed.data.url, contentType: parsed.data.content_type };
    const id = ctx.config.connector_id;
    let got: Retrieved;
    if (!id) got = await retrieveLocally(ctx.services.fhir(), ctx.orgId, wanted.url);
    else {
      const accept = wanted.contentType ? `${wanted.contentType}, application/fhir+json;q=0.5` : "*/*";
      got = await fromPeer(await ctx.services.connectors.fetch(id, wanted.url, { headers: { accept }, signal: ctx.signal }), wanted.url, wanted.contentType);
    }
    const { size, hash } = await checkIntegrity(wanted, got);
    return { outputs: { document: { url: wanted.url, content_type: got.contentType, data: toBase64(got.bytes), size, hash } } };
  },
});
