// PDQm ITI-119 Patient Demographics Match: POST Patient/$match (Match Operation option).
import { z } from "@hono/zod-openapi";
import { type AnyOperation, defineOperation } from "../../../features/fhir";
import { findMatches, matchBundle } from "./match";
import { readMatchRequest } from "./match-input";

export const PDQM_SUPPLIER = "https://profiles.ihe.net/ITI/PDQm/CapabilityStatement/IHE.PDQm.PatientDemographicsSupplier";

export const matchOperation = defineOperation({
  name: "match",
  definition: "http://hl7.org/fhir/OperationDefinition/Patient-match",
  instantiates: PDQM_SUPPLIER,
  levels: ["type"],
  types: ["Patient"],
  methods: ["POST"],
  permission: "fhir:read",
  input: "resource",
  parameters: z.object({}),
  summary: "PDQm ITI-119 $match: patients scored against the given demographics, with match-grade",
  handler: async ({ store, body }) => {
    const request = readMatchRequest(body);
    const matches = await findMatches((type, query) => store.search(type, query), request.patient);
    await store.recordAudit({ interaction: "operation", what: "Patient", query: "$match", outcome: "0" });
    return { body: matchBundle(matches, request) };
  },
});

export const PDQM_OPERATIONS: AnyOperation[] = [matchOperation];
