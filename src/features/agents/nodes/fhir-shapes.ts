// Structural checks of the FHIR R4 resources the extraction node may output: the
// elements R4 requires (cardinality 1..1) and the codes R4 binds as required.
import { z } from "zod";

const Coding = z.object({ system: z.string().url().optional(), code: z.string().min(1).optional(), display: z.string().optional() });
const CodeableConcept = z
  .object({ coding: z.array(Coding).optional(), text: z.string().optional() })
  .refine((c) => (c.coding?.length ?? 0) > 0 || !!c.text, "a CodeableConcept needs coding or text");
const Reference = z.object({ reference: z.string().regex(/^[A-Z][A-Za-z]+\/[A-Za-z0-9\-.]{1,64}$/), display: z.string().optional() });
const Quantity = z.object({ value: z.number(), unit: z.string().optional(), system: z.string().optional(), code: z.string().optional() });
const dateTime = z.string().regex(/^\d{4}(-\d{2}(-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2}))?)?)?$/, "a FHIR dateTime");

export const RESOURCE_SHAPES = {
  Condition: z.looseObject({
    resourceType: z.literal("Condition"),
    code: CodeableConcept.optional(),
    subject: Reference,
    onsetDateTime: dateTime.optional(),
  }),
  Observation: z.looseObject({
    resourceType: z.literal("Observation"),
    status: z.enum(["registered", "preliminary", "final", "amended", "corrected", "cancelled", "entered-in-error", "unknown"]),
    code: CodeableConcept,
    subject: Reference.optional(),
    effectiveDateTime: dateTime.optional(),
    valueQuantity: Quantity.optional(),
  }),
  MedicationRequest: z.looseObject({
    resourceType: z.literal("MedicationRequest"),
    status: z.enum(["active", "on-hold", "cancelled", "completed", "entered-in-error", "stopped", "draft", "unknown"]),
    intent: z.enum(["proposal", "plan", "order", "original-order", "reflex-order", "filler-order", "instance-order", "option"]),
    medicationCodeableConcept: CodeableConcept,
    subject: Reference,
  }),
  AllergyIntolerance: z.looseObject({
    resourceType: z.literal("AllergyIntolerance"),
    code: CodeableConcept.optional(),
    patient: Reference,
  }),
  Procedure: z.looseObject({
    resourceType: z.literal("Procedure"),
    status: z.enum(["preparation", "in-progress", "not-done", "on-hold", "stopped", "completed", "entered-in-error", "unknown"]),
    code: CodeableConcept.optional(),
    subject: Reference,
  }),
} as const;

export type ExtractableType = keyof typeof RESOURCE_SHAPES;
export const EXTRACTABLE_TYPES = Object.keys(RESOURCE_SHAPES) as ExtractableType[];
