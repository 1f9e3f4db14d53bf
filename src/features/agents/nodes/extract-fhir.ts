// ai node "extract_fhir": the model turns free text into FHIR R4 resources; each
// is validated before output, and what fails validation is reported, not output.
import { z } from "zod";
import { modelError } from "../../../platform/errors";
import type { Bundle, Resource } from "../../fhir";
import { zodDetails } from "../../../platform/http/router";
import { inputText } from "../prompt";
import { ModelSettings, complete, inputOf } from "./complete";
import { EXTRACTABLE_TYPES, RESOURCE_SHAPES } from "./fhir-shapes";
import { defineNode } from "../../pipelines";
import { AI_INPUTS, aiContext } from "./types";

const Config = z.object({
  ...ModelSettings,
  resource_types: z.array(z.enum(EXTRACTABLE_TYPES as [string, ...string[]])).min(1).default(["Condition", "Observation", "MedicationRequest"]),
  patient_reference: z.string().regex(/^Patient\/[A-Za-z0-9\-.]{1,64}$/).optional(),
  instructions: z.string().max(5000).default(""),
});

/** The JSON object in a model answer, with or without a ```json fence around it. */
export function parseJsonAnswer(text: string): unknown {
  const fenced = /```(?:json)?([\s\S]*?)```/.exec(text);
  const body = (fenced?.[1] ?? text).trim();
  const start = body.search(/[[{]/);
  if (start < 0) throw new Error("no JSON in the answer");
  return JSON.parse(body.slice(start));
}

export interface Rejected {
  index: number;
  resourceType: unknown;
  errors: { path: string; message: string }[];
}

export function validateResources(candidates: unknown[], allowed: string[]): { valid: Resource[]; rejected: Rejected[] } {
  const valid: Resource[] = [];
  const rejected: Rejected[] = [];
  candidates.forEach((c, index) => {
    const type = (c as { resourceType?: unknown } | null)?.resourceType;
    if (typeof type !== "string" || !allowed.includes(type)) {
      rejected.push({ index, resourceType: type, errors: [{ path: "resourceType", message: `must be one of ${allowed.join(", ")}` }] });
      return;
    }
    const parsed = RESOURCE_SHAPES[type as keyof typeof RESOURCE_SHAPES].safeParse(c);
    if (parsed.success) valid.push(parsed.data as Resource);
    else rejected.push({ index, resourceType: type, errors: zodDetails(parsed.error) });
  });
  return { valid, rejected };
}

export const extractFhirNode = defineNode({
  id: "ai.extract_fhir",
  name: "Extract to FHIR",
  category: "ai",
  description: "Extracts structured clinical data from text into validated FHIR R4 resources (a collection Bundle)",
  keywords: ["extract", "structured", "fhir", "nlp", "llm", "resources"],
  inputs: AI_INPUTS,
  outputs: [
    { name: "bundle", type: "fhir-bundle" },
    { name: "rejected", type: "json" },
  ],
  config: Config,
  documentation: {
    summary: "Extracts FHIR resources from free text; only resources that pass validation are output, in a collection Bundle.",
    example: { config: { resource_types: ["Condition"], patient_reference: "Patient/123" }, inputs: { input: "Known type 2 diabetes" } },
  },
  run: async (node) => {
    const { config, inputs } = node;
    const subject = config.patient_reference ?? "Patient/unknown";
    const system =
      `Extract clinical facts from the user's text as FHIR R4 resources of these types only: ${config.resource_types.join(", ")}. ` +
      `Answer with JSON only: {"resources": [ ... ]}. Use ${subject} as subject (patient for AllergyIntolerance). ` +
      "Use LOINC for observations and SNOMED CT for conditions when you know the code; otherwise give code.text. " +
      `Do not invent facts that are not in the text. ${config.instructions}`.trim();
    const { text, model } = await complete(aiContext(node), config, system, inputText(inputOf(inputs)));
    let parsed: unknown;
    try {
      parsed = parseJsonAnswer(text);
    } catch (err) {
      throw modelError(`Model ${model} did not answer JSON: ${err instanceof Error ? err.message : String(err)}`);
    }
    const list = Array.isArray(parsed) ? parsed : (parsed as { resources?: unknown }).resources;
    if (!Array.isArray(list)) throw modelError(`Model ${model} answered JSON without a resources array`);
    const { valid, rejected } = validateResources(list, config.resource_types);
    const bundle: Bundle = {
      resourceType: "Bundle",
      type: "collection",
      entry: valid.map((resource) => ({ fullUrl: `urn:uuid:${crypto.randomUUID()}`, resource })),
    };
    return { outputs: { bundle, rejected, model } };
  },
});
