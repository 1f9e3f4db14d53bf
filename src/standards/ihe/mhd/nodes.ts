// MHD catalog nodes. `mhd.provide_document` publishes a document as a valid ITI-65 Provide
// Document Bundle, to the organization's own store (checked by the same MHD rules as the FHIR
// endpoint, then one transaction) or to another MHD Document Recipient through a FHIR
// connector. `mhd.find_documents` runs an ITI-67 Find Document References and
// `mhd.find_document_lists` an ITI-66 Find Document Lists on the store or a remote Document
// Responder; `mhd.retrieve_document` (retrieve-node.ts) is ITI-68.
import { z } from "zod";
import type { Bundle, Resource } from "../../../platform/fhir-resource";
import { NodeFailure } from "../../../features/pipelines";
import { type NodeContext, defineNode } from "../../../features/pipelines";
import { buildProvideBundle, organizationSourceId } from "./build-bundle";
import { toBase64 } from "./document-bytes";
import { type ReadStored, provideBundleIssues, storedReader } from "./provide-bundle";
import { retrieveDocumentNode } from "./retrieve-node";

const Coding = z.object({ system: z.string().min(1), code: z.string().min(1), display: z.string().optional() }).strict();

const ProvideConfig = z
  .object({
    connector_id: z.string().min(1).optional().describe("A FHIR connector to another MHD Document Recipient; the organization's own store when absent"),
    option: z.enum(["minimal", "comprehensive"]).default("comprehensive").describe("The MHD option the Bundle declares"),
    type: Coding.optional().describe("DocumentReference.type (XDS typeCode; required for comprehensive)"),
    category: Coding.optional().describe("DocumentReference.category (XDS classCode; required for comprehensive)"),
    format: Coding.default({ system: "http://ihe.net/fhir/ihe.formatcode.fhir/CodeSystem/formatcode", code: "urn:ihe:iti:xds:2017:mimeTypeSufficient" }),
    facility_type: Coding.optional().describe("context.facilityType (required for comprehensive)"),
    practice_setting: Coding.optional().describe("context.practiceSetting (required for comprehensive)"),
    confidentiality: Coding.default({ system: "http://terminology.hl7.org/CodeSystem/v3-Confidentiality", code: "N" }),
    language: z.string().min(2).optional().describe("content.attachment.language, BCP-47 (required for comprehensive)"),
    designation_type: Coding.optional().describe("The SubmissionSet's ihe-designationType (XDS contentTypeCode); comprehensive defaults it to type"),
    source_id: z
      .string()
      .regex(/^urn:oid:[0-2](\.(0|[1-9]\d*))+$/)
      .optional()
      .describe("The SubmissionSet's ihe-sourceId (urn:oid:…); defaults to an OID derived from the organization (2.25 arc)"),
  })
  .strict();

const DocumentInput = z.object({
  patient: z.string().min(1).describe("Patient/id (or the recipient's absolute Patient URL)"),
  data: z.string().optional().describe("The document, base64"),
  text: z.string().optional().describe("The document as text (UTF-8), instead of data"),
  content_type: z.string().min(1),
  title: z.string().optional(),
});

function base64Of(input: z.infer<typeof DocumentInput>): string {
  if (input.data !== undefined) return input.data;
  if (input.text === undefined) throw new NodeFailure("MHD_INPUT_INVALID", "The input needs data (base64) or text");
  return toBase64(new TextEncoder().encode(input.text));
}

/** The ITI-65 rules before anything is sent: a plain FHIR recipient would store a Bundle that breaks them. */
async function checkBundle(bundle: Bundle, read: ReadStored): Promise<void> {
  const issues = await provideBundleIssues(bundle, read);
  if (issues.length) throw new NodeFailure("MHD_BUNDLE_INVALID", issues.map((i) => `${i.code}: ${i.message}`).join("; "), { issues });
}

/** Reads the recipient's resources through the connector (its patient, a Folder's documents, recipients). */
const connectorReader =
  (connectors: NodeContext<unknown>["services"]["connectors"], connectorId: string, signal: AbortSignal): ReadStored =>
  async (type, id) => {
    const res = await connectors.fetch(connectorId, `${type}/${encodeURIComponent(id)}`, { headers: { accept: "application/fhir+json" }, signal });
    if (res.status === 404 || res.status === 410) return undefined;
    const body = (await peerJson(res, `reading ${type}/${id}`)) as unknown as Resource;
    return body.resourceType === type ? body : undefined;
  };

/** A connector answer as JSON, or a NodeFailure carrying the peer's OperationOutcome. */
async function peerJson(res: Response, what: string): Promise<Bundle> {
  const body = (await res.json().catch(() => undefined)) as Bundle | undefined;
  if (!res.ok) throw new NodeFailure("MHD_PEER_REFUSED", `${what}: the peer answered ${res.status}`, { status: res.status, outcome: body ?? null });
  if (!body || typeof body !== "object") throw new NodeFailure("MHD_PEER_INVALID", `${what}: the peer's answer is not JSON`);
  return body;
}

export const provideDocumentNode = defineNode({
  id: "mhd.provide_document",
  name: "MHD provide document",
  category: "healthcare",
  description:
    "Publishes a document as an IHE MHD ITI-65 Provide Document Bundle (SubmissionSet, DocumentReference, Binary with size and SHA-1 hash) to the organization's store or to another MHD Document Recipient through a FHIR connector.",
  keywords: ["mhd", "ihe", "document", "iti-65", "provide", "publish", "xds", "documentreference", "pdf", "cda"],
  inputs: [{ name: "input", type: "json", description: "{ patient, data (base64) or text, content_type, title? }" }],
  outputs: [
    { name: "response", type: "fhir-bundle", description: "The transaction-response Bundle" },
    { name: "bundle", type: "fhir-bundle", description: "The ITI-65 Bundle sent" },
  ],
  config: ProvideConfig,
  documentation: {
    summary:
      "The Bundle is checked by the MHD rules first (the XDS error codes in the failure; nothing is sent or stored): without connector_id against the organization's store, then stored in one transaction; with one against the recipient (its Patient must exist there), then POSTed to it.",
    example: { config: { option: "minimal" }, inputs: { input: { patient: "Patient/example", text: "Discharge letter", content_type: "text/plain" } } },
  },
  run: async (ctx) => {
    const parsed = DocumentInput.safeParse(ctx.inputs.input);
    if (!parsed.success) throw new NodeFailure("MHD_INPUT_INVALID", parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; "));
    const c = ctx.config;
    // Without a connector the checks read the organization's store, with one the recipient (its patient must exist there).
    const port = c.connector_id ? undefined : ctx.services.fhir();
    const read = port ? storedReader(port) : connectorReader(ctx.services.connectors, c.connector_id!, ctx.signal);
    const patientId = /^(?:.*\/)?Patient\/([A-Za-z0-9\-.]{1,64})$/.exec(parsed.data.patient)?.[1];
    // Comprehensive keeps the patient as known now, contained (sourcePatientInfo); an unknown patient fails the checks below.
    const sourcePatient = c.option === "comprehensive" && patientId ? await read("Patient", patientId) : undefined;
    const bundle = await buildProvideBundle({
      patient: parsed.data.patient,
      data: base64Of(parsed.data),
      contentType: parsed.data.content_type,
      title: parsed.data.title,
      option: c.option,
      type: c.type,
      category: c.category,
      format: c.format,
      facilityType: c.facility_type,
      practiceSetting: c.practice_setting,
      confidentiality: c.confidentiality,
      language: c.language,
      designationType: c.designation_type,
      sourceId: c.source_id ?? (await organizationSourceId(ctx.orgId)),
      sourcePatient,
    });
    await checkBundle(bundle, read);
    if (port) return { outputs: { response: await port.batch(bundle), bundle } };
    const res = await ctx.services.connectors.fetch(c.connector_id!, "", {
      method: "POST",
      headers: { "content-type": "application/fhir+json", accept: "application/fhir+json" },
      body: JSON.stringify(bundle),
      signal: ctx.signal,
    });
    return { outputs: { response: await peerJson(res, "ITI-65"), bundle } };
  },
});

const FindConfig = z
  .object({
    connector_id: z.string().min(1).optional().describe("A FHIR connector to another MHD Document Responder; the organization's own store when absent"),
    status: z.enum(["current", "superseded", "entered-in-error"]).default("current"),
  })
  .strict();

const FindInput = z.union([
  z.object({ patient: z.string().min(1) }).describe("Patient/id"),
  z.object({ patient_identifier: z.string().min(1) }).describe("system|value"),
]);

/** The patient part of an MHD Find (ITI-66, ITI-67): `patient` or `patient.identifier`, from the node's input. */
function patientQuery(input: unknown): URLSearchParams {
  const parsed = FindInput.safeParse(input);
  if (!parsed.success) throw new NodeFailure("MHD_INPUT_INVALID", "The input needs patient (Patient/id) or patient_identifier (system|value)");
  return new URLSearchParams("patient" in parsed.data ? { patient: parsed.data.patient } : { "patient.identifier": parsed.data.patient_identifier });
}

/** An MHD Find's searchset: from the organization's store, or from the Document Responder behind the connector. */
async function find(ctx: NodeContext<{ connector_id?: string }>, type: "DocumentReference" | "List", transaction: string, query: URLSearchParams): Promise<Bundle> {
  if (!ctx.config.connector_id) return ctx.services.fhir().search(type, query.toString());
  const res = await ctx.services.connectors.fetch(ctx.config.connector_id, `${type}?${query}`, { headers: { accept: "application/fhir+json" }, signal: ctx.signal });
  return peerJson(res, transaction);
}

export const findDocumentsNode = defineNode({
  id: "mhd.find_documents",
  name: "MHD find documents",
  category: "healthcare",
  description: "Finds a patient's DocumentReferences by IHE MHD ITI-67 (patient or patient.identifier, and status) in the organization's store or on another MHD Document Responder through a FHIR connector.",
  keywords: ["mhd", "ihe", "iti-67", "find", "documents", "query", "documentreference", "xds"],
  inputs: [{ name: "input", type: "json", description: "{ patient: 'Patient/id' } or { patient_identifier: 'system|value' }" }],
  outputs: [{ name: "documents", type: "fhir-bundle", description: "The searchset Bundle of DocumentReferences" }],
  config: FindConfig,
  documentation: {
    summary: "Each DocumentReference's content.attachment.url is where ITI-68 retrieves the document.",
    example: { config: { status: "current" }, inputs: { input: { patient_identifier: "urn:oid:1.2.3|12345" } } },
  },
  run: async (ctx) => {
    const query = patientQuery(ctx.inputs.input);
    query.set("status", ctx.config.status);
    return { outputs: { documents: await find(ctx, "DocumentReference", "ITI-67", query) } };
  },
});

const MHD_LIST_TYPES = "https://profiles.ihe.net/ITI/MHD/CodeSystem/MHDlistTypes";

const FindListsConfig = z
  .object({
    connector_id: z.string().min(1).optional().describe("A FHIR connector to another MHD Document Responder; the organization's own store when absent"),
    status: z.enum(["current", "retired", "entered-in-error"]).default("current").describe("List.status (an XDS SubmissionSet or Folder's availability)"),
    list_type: z.enum(["submissionset", "folder"]).optional().describe("SubmissionSets or Folders only; both when absent"),
  })
  .strict();

export const findDocumentListsNode = defineNode({
  id: "mhd.find_document_lists",
  name: "MHD find document lists",
  category: "healthcare",
  description:
    "Finds a patient's SubmissionSets and Folders (List) by IHE MHD ITI-66 (patient or patient.identifier, status and the MHD list type) in the organization's store or on another MHD Document Responder through a FHIR connector.",
  keywords: ["mhd", "ihe", "iti-66", "find", "document lists", "submissionset", "folder", "list", "xds"],
  inputs: [{ name: "input", type: "json", description: "{ patient: 'Patient/id' } or { patient_identifier: 'system|value' }" }],
  outputs: [{ name: "lists", type: "fhir-bundle", description: "The searchset Bundle of Lists (SubmissionSets, Folders)" }],
  config: FindListsConfig,
  documentation: {
    summary: "Each List's entry.item references the DocumentReferences it holds; mhd.find_documents (ITI-67) and mhd.retrieve_document (ITI-68) take it from there.",
    example: { config: { list_type: "folder" }, inputs: { input: { patient_identifier: "urn:oid:1.2.3|12345" } } },
  },
  run: async (ctx) => {
    const query = patientQuery(ctx.inputs.input);
    query.set("status", ctx.config.status);
    const types = ctx.config.list_type ? [ctx.config.list_type] : ["submissionset", "folder"];
    query.set("code", types.map((t) => `${MHD_LIST_TYPES}|${t}`).join(","));
    return { outputs: { lists: await find(ctx, "List", "ITI-66", query) } };
  },
});

export const MHD_NODES = [provideDocumentNode, findDocumentsNode, findDocumentListsNode, retrieveDocumentNode];
