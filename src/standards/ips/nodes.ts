// The IPS summary node: a pipeline builds a patient's International Patient Summary (the same
// document as Patient/$summary) from the store, or from a Bundle it holds (a converted HL7 v2
// message), and sends it onward.
import { z } from "zod";
import { ApiError } from "../../platform/errors";
import type { Bundle, Resource } from "../../platform/fhir-resource";
import { defineNode } from "../../features/pipelines";
import { buildSummary } from "./document";
import { type PatientRecord, recordFromBundle, recordFromPort } from "./record";

const Config = z
  .object({
    patient_id: z.string().regex(/^[A-Za-z0-9\-.]{1,64}$/).optional().describe("The stored patient to summarise (otherwise taken from the input)"),
  })
  .strict();

/** A stored patient's id from the input: an id, a "Patient/id" reference (or {reference}), or a Patient with an id. */
function patientIdOf(input: unknown): string | undefined {
  if (typeof input === "string") return input.replace(/^Patient\//, "");
  const v = input as { resourceType?: string; id?: string; reference?: string; patient_id?: unknown } | undefined;
  if (v?.resourceType === "Patient" && v.id) return v.id;
  if (typeof v?.patient_id === "string") return v.patient_id;
  if (typeof v?.reference === "string" && v.reference.startsWith("Patient/")) return v.reference.slice("Patient/".length);
  return undefined;
}

export const ipsSummaryNode = defineNode({
  id: "ips.summary",
  name: "IPS summary",
  category: "healthcare",
  description:
    "Builds the International Patient Summary (IPS document Bundle, as Patient/$summary answers) for a stored patient, or from a Bundle holding one Patient and its resources (e.g. HL7 to FHIR's output).",
  keywords: ["ips", "patient summary", "summary", "document", "ehds", "composition", "international patient summary"],
  inputs: [{ name: "input", type: "any", description: "A patient id (or {patient_id}), a Patient reference or resource, or a Bundle with one Patient" }],
  outputs: [{ name: "document", type: "fhir-bundle", description: "The IPS document Bundle" }],
  config: Config,
  documentation: {
    summary: "With patient_id (or a Patient id/reference on the input) the record is read from the store; a Bundle input is summarised as it is.",
    example: { config: { patient_id: "example" }, outputs: { document: { resourceType: "Bundle", type: "document" } } },
  },
  run: async (ctx) => {
    const input = ctx.inputs.input;
    const patientId = ctx.config.patient_id ?? patientIdOf(input);
    let source: PatientRecord;
    if (patientId) source = await recordFromPort(ctx.services.fhir(), patientId);
    // A Bundle's entries keep their fullUrls (a transaction's urn:uuids); their requests are dropped.
    else if ((input as Resource | undefined)?.resourceType === "Bundle") source = recordFromBundle(input as Bundle);
    else throw new ApiError(422, "IPS_INPUT_INVALID", "The input must be a patient id, a Patient reference or resource with an id, or a Bundle with one Patient");
    return { outputs: { document: buildSummary({ ...source, generator: "IPS summary pipeline node" }) } };
  },
});

export const IPS_NODES = [ipsSummaryNode];
