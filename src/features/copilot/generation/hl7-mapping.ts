// generate/hl7-mapping: field mapping rules from HL7 v2 to FHIR, each source checked
// against the HL7 v2 parser's field paths (and, with a sample message, read from it), each
// target a FHIR element path. Paths the parser cannot read go back to the model.
import { z } from "@hono/zod-openapi";
import type { FieldError } from "../../../platform/errors";
import { badRequest } from "../../../platform/errors";
import type { ResolvedModel } from "../../agents";
import { isResourceType } from "../../fhir";
import type { Hl7FieldPaths } from "../ports";
import { generateStructured } from "./structured";

export const MappingRuleSchema = z.object({
  source: z.string().min(1).max(100).openapi({ description: "HL7 v2 field path, e.g. PID-5.1 or OBX[2]-5" }),
  target: z.string().min(1).max(200).openapi({ description: "FHIR element path, e.g. Patient.name[0].family" }),
  transform: z.string().max(500).optional().openapi({ description: "How the value changes on the way (date format, code map...)" }),
  note: z.string().max(500).optional(),
});

export const GeneratedMappingSchema = z.object({ rules: z.array(MappingRuleSchema).min(1).max(200) });

const FHIR_PATH = /^[A-Z][A-Za-z]+(\.[a-z][A-Za-z0-9]*(\[\d+\])?)+$/;

export interface MappingRequest {
  description: string;
  message_type?: string;
  sample_message?: string;
}

export function mappingErrors(rules: z.infer<typeof MappingRuleSchema>[], hl7: Hl7FieldPaths): FieldError[] {
  return rules.flatMap((r, i) => {
    const out: FieldError[] = [];
    const problem = hl7.problem(r.source);
    if (problem) out.push({ path: `rules.${i}.source`, message: problem });
    if (!FHIR_PATH.test(r.target)) out.push({ path: `rules.${i}.target`, message: `${r.target} is not a FHIR element path (Resource.element[.child], e.g. Patient.birthDate)` });
    else if (!isResourceType(r.target.split(".")[0] as string)) out.push({ path: `rules.${i}.target`, message: `${r.target.split(".")[0]} is not a FHIR R4 resource type` });
    return out;
  });
}

export async function generateHl7Mapping(model: ResolvedModel, hl7: Hl7FieldPaths, req: MappingRequest, attempts?: number) {
  let sample: ReturnType<Hl7FieldPaths["parse"]> | undefined;
  if (req.sample_message) {
    try {
      sample = hl7.parse(req.sample_message);
    } catch (e) {
      throw badRequest(`sample_message is not an HL7 v2 message: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
  const messageType = req.message_type ?? sample?.type;
  const result = await generateStructured(
    {
      model: model.model,
      modelId: model.info.id,
      system:
        'You map HL7 v2 messages to FHIR R4. Answer {"rules": [{"source": "SEG-field[.component[.subcomponent]]", "target": "Resource.element", "transform"?: string, "note"?: string}]}. Source paths use the segment id, a dash, the 1-based field number, optional [repetition] and .component.subcomponent (e.g. PID-3[1].1, PID-5.1, OBX-5).',
      prompt: `${req.description}${messageType ? `\nMessage type: ${messageType}` : ""}${req.sample_message ? `\nSample message:\n${req.sample_message}` : ""}`,
      schema: GeneratedMappingSchema,
      attempts,
      check: (value) => mappingErrors(value.rules, hl7),
    },
    "HL7 mapping",
  );
  const warnings: string[] = [];
  const rules = result.value.rules.map((r) => {
    if (!sample) return r;
    const value = sample.value(r.source);
    if (value === undefined || value === "") warnings.push(`${r.source} is empty in the sample message`);
    return { ...r, sample_value: value ?? null };
  });
  return { message_type: messageType ?? null, rules, warnings, attempts: result.attempts, model: model.info.id };
}
