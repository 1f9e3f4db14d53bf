// Bulk Data kick-off ($export at system, Patient and Group level, HL7 Bulk Data Access IG v2) as
// FHIR operations: the composition root adds them to the FHIR operations registry.
import { z } from "@hono/zod-openapi";
import type { AnyOperation, FhirOperation, OperationCall, OperationResponse } from "../fhir";
import type { ExportLevel } from "./kickoff";
import { startExport } from "./start-export";
import { audited } from "../audit";

const BULK_DATA = "http://hl7.org/fhir/uv/bulkdata";

// List-valued parameters may repeat (`_type=A&_type=B` is `_type=A,B`).
const repeatable = (description: string) => z.union([z.string(), z.array(z.string())]).optional().openapi({ description });
const kickoffQuery = z.object({
  _type: repeatable("Comma-separated resource types; may repeat"),
  _since: z.string().optional().openapi({ description: "RFC 3339 instant; only resources updated after it" }),
  _typeFilter: repeatable("Comma-separated Type?query FHIR searches; may repeat"),
  _outputFormat: z.string().optional().openapi({ description: "application/fhir+ndjson (default), application/ndjson or ndjson" }),
  _elements: repeatable("Comma-separated element names (optionally Type.element); may repeat"),
  includeAssociatedData: repeatable(
    "LatestProvenanceResources (each exported resource's most recently recorded Provenance) or RelevantProvenanceResources (all Provenance targeting exported resources); may repeat",
  ),
});
type KickoffQuery = z.infer<typeof kickoffQuery>;

const LEVELS = { system: "system", type: "patient", instance: "group" } as const satisfies Record<string, ExportLevel>;

/** Kick-off: 202 with the status URL in Content-Location (parseKickoff reads the query and the Parameters body itself). */
async function kickoff(call: OperationCall<KickoffQuery>): Promise<OperationResponse> {
  const { store, request } = call;
  const jobId = await startExport(
    { env: call.env, store, concurrentExports: call.limits.concurrentExports, path: request.path },
    {
      level: LEVELS[call.level],
      ...(call.id ? { groupId: call.id } : {}),
      method: request.method,
      url: request.url,
      accept: request.headers.get("accept") ?? undefined,
      prefer: request.headers.get("prefer") ?? undefined,
      body: call.body,
    },
  );
  return { status: 202, headers: { "Content-Location": `${store.baseUrl}/bulkdata/status/${jobId}` } };
}

const kickoffOperation = {
  name: "export",
  instantiates: `${BULK_DATA}/CapabilityStatement/bulk-data`,
  methods: ["GET", "POST"],
  permission: "export:run",
  input: "parameters",
  parameters: kickoffQuery,
  // Bulk Data kick-off headers: Accept application/fhir+json, Prefer respond-async (both required).
  headers: z.object({
    accept: z.string().optional().openapi({ example: "application/fhir+json" }),
    prefer: z.string().optional().openapi({ example: "respond-async" }),
  }),
  // The IG wants a 400 OperationOutcome for an Accept other than application/fhir+json.
  negotiatesItself: true,
  responses: { 202: "Export started; poll the URL in Content-Location", 429: "Too many concurrent exports for this organization" },
  // The job's id is the last segment of the status URL the kick-off answers.
  audit: audited("export.start", { contentLocation: true }),
  handler: kickoff,
} satisfies Partial<FhirOperation<KickoffQuery>>;

export const exportOperations: AnyOperation[] = [
  {
    ...kickoffOperation,
    definition: `${BULK_DATA}/OperationDefinition/export`,
    levels: ["system"],
    types: [],
    summary: "Kick off a system-level export of the organization's data",
  },
  {
    ...kickoffOperation,
    capabilityName: "patient-export",
    definition: `${BULK_DATA}/OperationDefinition/patient-export`,
    levels: ["type"],
    types: ["Patient"],
    summary: "Kick off a Patient-level export (Patient compartment)",
  },
  {
    ...kickoffOperation,
    capabilityName: "group-export",
    definition: `${BULK_DATA}/OperationDefinition/group-export`,
    levels: ["instance"],
    types: ["Group"],
    summary: "Kick off an export of a Group's members' compartments",
  },
];
