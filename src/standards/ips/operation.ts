// Patient/$summary (IPS OperationDefinition summary-uv-ips): the patient's IPS document, at
// instance level or at type level with `identifier` (system|value), by GET or POST. The
// record is the store's $everything over the types a summary needs (every member of each, up to
// MAX_PER_TYPE, a cap the document names when reached), so the access policy and tenancy apply as
// to any read.
import { z } from "@hono/zod-openapi";
import { type AnyOperation, defineOperation } from "../../features/fhir";
import type { Resource } from "../../platform/fhir-resource";
import { badRequest, notFound } from "../../platform/errors";
import { IPS_BUNDLE_PROFILE, buildSummary } from "./document";
import { IPS_SERVER } from "./actors";
import { COMPARTMENT_TYPES, MAX_PER_TYPE, recordFromEverything, searchAll, shortfallOf } from "./record";

const SummaryParams = z.object({
  identifier: z.string().min(1).optional().openapi({ description: "The patient's identifier (system|value), at type level" }),
  profile: z.string().optional().openapi({ description: `The document profile: only ${IPS_BUNDLE_PROFILE}` }),
});

type Parameter = { name?: string; valueString?: string; valueCanonical?: string; valueUri?: string; valueIdentifier?: { system?: string; value?: string } };

/** A POST's Parameters value for `name`, as a string (an Identifier as system|value). */
function parameter(body: unknown, name: string): string | undefined {
  const params = ((body as Resource | undefined)?.parameter as Parameter[] | undefined) ?? [];
  const p = params.find((x) => x.name === name);
  if (!p) return undefined;
  if (p.valueIdentifier) return `${p.valueIdentifier.system ?? ""}|${p.valueIdentifier.value ?? ""}`;
  return p.valueString ?? p.valueCanonical ?? p.valueUri;
}

export const summaryOperation = defineOperation({
  name: "summary",
  definition: "http://hl7.org/fhir/uv/ips/OperationDefinition/summary",
  instantiates: IPS_SERVER,
  levels: ["type", "instance"],
  types: ["Patient"],
  methods: ["GET", "POST"],
  permission: "fhir:read",
  input: "parameters",
  parameters: SummaryParams,
  summary: "IPS $summary: the patient's International Patient Summary as a document Bundle",
  responses: { 404: "No patient has that id or identifier" },
  handler: async ({ store, id, params, body }) => {
    if (body !== undefined && (body as Resource).resourceType !== "Parameters") throw badRequest("The $summary body must be a Parameters resource");
    const profile = params.profile ?? parameter(body, "profile");
    if (profile !== undefined && profile.split("|")[0] !== IPS_BUNDLE_PROFILE) throw badRequest(`Only the IPS profile ${IPS_BUNDLE_PROFILE} is supported, got ${profile}`);
    const identifier = params.identifier ?? parameter(body, "identifier");
    let patientId = id;
    if (!patientId) {
      if (!identifier) throw badRequest("$summary at type level needs an identifier (system|value)");
      const found = await store.matchIds("Patient", `identifier=${encodeURIComponent(identifier)}`, 2);
      if (found.length === 0) throw notFound(`No Patient has identifier ${identifier}`);
      if (found.length > 1) throw badRequest(`Several patients have identifier ${identifier}`);
      patientId = found[0]!;
    }
    const everything = await store.patientEverything(patientId, { types: COMPARTMENT_TYPES, perType: MAX_PER_TYPE });
    const { patient, record, incomplete } = recordFromEverything(everything.bundle, patientId, everything.incomplete.map((s) => ({ ...s, type: s.type! })));
    // Device is outside the R4 Patient compartment: the patient's devices (wearables) by Device.patient.
    const devices = await searchAll(store, "Device", `patient=Patient/${encodeURIComponent(patientId)}&_sort=-_lastUpdated&_count=1000`, MAX_PER_TYPE);
    const bundle = buildSummary({ patient, record: [...record, ...devices.entries], generator: "IPS $summary", incomplete: [...incomplete, ...shortfallOf("Device", devices)] });
    await store.recordAudit({ interaction: "operation", what: `Patient/${patientId}`, query: "$summary", outcome: "0" });
    return { body: bundle };
  },
});

export const IPS_OPERATIONS: AnyOperation[] = [summaryOperation];
