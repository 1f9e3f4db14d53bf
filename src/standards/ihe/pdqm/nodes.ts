// The patient-match node: a pipeline reconciling incoming demographics asks the same matcher
// as $match which stored patients they are, and routes on the best grade.
import { z } from "zod";
import type { Resource } from "../../../platform/fhir-resource";
import { defineNode } from "../../../features/pipelines";
import { ApiError } from "../../../platform/errors";
import { findMatches, matchBundle } from "./match";
import { MAX_MATCHES } from "./match-input";

const Config = z
  .object({
    only_certain: z.boolean().default(false).describe("Return a match only when exactly one patient matches with grade certain"),
    count: z.number().int().min(1).max(MAX_MATCHES).default(5).describe("At most this many matches"),
  })
  .strict();

/** The Patient on the input: a Patient, or a Bundle's first Patient (an HL7 conversion). */
function patientOf(input: unknown): Resource {
  const r = input as Resource | undefined;
  if (r?.resourceType === "Patient") return r;
  const inBundle = r?.resourceType === "Bundle" ? (r.entry as { resource?: Resource }[] | undefined)?.find((e) => e.resource?.resourceType === "Patient")?.resource : undefined;
  if (inBundle) return inBundle;
  throw new ApiError(422, "PATIENT_MATCH_INPUT_INVALID", "The input must be a Patient or a Bundle holding one");
}

export const patientMatchNode = defineNode({
  id: "ihe.patient_match",
  name: "Patient match",
  category: "healthcare",
  description:
    "Finds the stored patients that match incoming demographics (identifiers, names with phonetic comparison, birth date, gender, address, telecom), scored and graded as PDQm $match does: certain, probable, possible.",
  keywords: ["patient", "match", "mpi", "empi", "pdqm", "demographics", "reconcile", "identity", "duplicate"],
  inputs: [{ name: "input", type: "fhir-resource", description: "A Patient, or a Bundle holding one" }],
  outputs: [
    { name: "matches", type: "fhir-bundle", description: "The $match Bundle: scored patients with match-grade" },
    { name: "certain", type: "fhir-resource", description: "The one certain match, when there is exactly one" },
    { name: "unmatched", type: "fhir-resource", description: "The input Patient, when no patient matches with certainty" },
  ],
  config: Config,
  documentation: {
    summary: "Route `certain` to an update of the known patient and `unmatched` to a review queue or a create.",
    example: { config: { only_certain: false, count: 5 }, inputs: { input: { resourceType: "Patient", name: [{ family: "Doe", given: ["Jane"] }], birthDate: "1980-01-01" } } },
  },
  run: async (ctx) => {
    const patient = patientOf(ctx.inputs.input);
    const port = ctx.services.fhir();
    const matches = await findMatches((type, query) => port.search(type, query), patient);
    const bundle = matchBundle(matches, { onlyCertainMatches: ctx.config.only_certain, count: ctx.config.count });
    const certain = matches.filter((m) => m.result.grade === "certain");
    return { outputs: { matches: bundle, ...(certain.length === 1 ? { certain: certain[0]!.resource } : { unmatched: patient }) } };
  },
});

export const IHE_NODES = [patientMatchNode];
