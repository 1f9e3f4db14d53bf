// The built-in agent tools: FHIR search and read, a patient summary, vitals (when
// the devices module is present), running a deployed pipeline, and terminology
// lookup. Each reaches the rest of the service only through AgentServices.
import { z } from "zod";
import type { Bundle, Resource } from "../../fhir";
import type { AgentServices } from "../services";
import { lookupDisplay } from "./terminology";
import type { AgentTool } from "./types";

const ResourceType = z.string().regex(/^[A-Z][A-Za-z]{1,63}$/, "a FHIR resource type such as Observation");
const Id = z.string().regex(/^[A-Za-z0-9\-.]{1,64}$/, "a FHIR id");

function entries(bundle: Bundle): Resource[] {
  return (bundle.entry ?? []).flatMap((e) => (e.resource ? [e.resource] : []));
}

/** What each built-in tool touches, for its AuditEvent. */
export interface BuiltinTool extends AgentTool {
  entity(args: unknown): string | undefined;
}

function define<S extends z.ZodType>(
  name: string,
  description: string,
  schema: S,
  entity: (args: z.infer<S>) => string | undefined,
  run: (args: z.infer<S>) => Promise<unknown>,
): BuiltinTool {
  return {
    name,
    description,
    input: { zod: schema },
    entity: (args) => entity(args as z.infer<S>),
    execute: (args) => run(schema.parse(args)),
  };
}

const SUMMARY_SECTIONS = [
  ["conditions", "Condition", "patient={id}&_count=20"],
  ["medications", "MedicationRequest", "patient={id}&_count=20"],
  ["allergies", "AllergyIntolerance", "patient={id}&_count=20"],
  ["recent_observations", "Observation", "patient={id}&_sort=-date&_count=10"],
] as const;

function codeText(r: Resource): string | undefined {
  const code = (r.code ?? r.medicationCodeableConcept) as { text?: string; coding?: { display?: string; code?: string }[] } | undefined;
  return code?.text ?? code?.coding?.[0]?.display ?? code?.coding?.[0]?.code;
}

function brief(r: Resource): Record<string, unknown> {
  const value = r.valueQuantity as { value?: number; unit?: string } | undefined;
  const status = (r.clinicalStatus as { coding?: { code?: string }[] } | undefined)?.coding?.[0]?.code ?? r.status;
  return {
    id: r.id,
    what: codeText(r),
    ...(status ? { status } : {}),
    ...(value ? { value: value.value, unit: value.unit } : {}),
    ...(r.effectiveDateTime || r.onsetDateTime || r.authoredOn
      ? { date: r.effectiveDateTime ?? r.onsetDateTime ?? r.authoredOn }
      : {}),
  };
}

export function builtinTools(services: AgentServices): BuiltinTool[] {
  const tools: BuiltinTool[] = [
    define(
      "fhir_search",
      "Search the organization's FHIR R4 store. `query` is a FHIR search query string, e.g. patient=123&code=http://loinc.org|8867-4&_sort=-date.",
      z.object({
        resource_type: ResourceType,
        query: z.string().max(2000).default(""),
        count: z.number().int().min(1).max(50).default(10),
      }),
      (a) => `${a.resource_type}?${a.query}`,
      async (a) => {
        const params = new URLSearchParams(a.query);
        params.set("_count", String(Math.min(Number(params.get("_count")) || a.count, 50)));
        const bundle = await services.fhir().search(a.resource_type, params.toString());
        return { total: bundle.total, resources: entries(bundle) };
      },
    ),
    define(
      "fhir_read",
      "Read one FHIR resource by type and id.",
      z.object({ resource_type: ResourceType, id: Id }),
      (a) => `${a.resource_type}/${a.id}`,
      (a) => services.fhir().read(a.resource_type, a.id),
    ),
    define(
      "patient_summary",
      "A compact summary of one patient: demographics, conditions, medications, allergies and recent observations.",
      z.object({ patient_id: Id }),
      (a) => `Patient/${a.patient_id}`,
      async (a) => {
        const fhir = services.fhir();
        const patient = await fhir.read("Patient", a.patient_id);
        const sections = await Promise.all(
          SUMMARY_SECTIONS.map(async ([key, type, query]) => {
            const bundle = await fhir.search(type, query.replace("{id}", encodeURIComponent(a.patient_id)));
            return [key, entries(bundle).map(brief)] as const;
          }),
        );
        return {
          patient: { id: patient.id, name: patient.name, gender: patient.gender, birthDate: patient.birthDate },
          ...Object.fromEntries(sections),
        };
      },
    ),
    define(
      "run_pipeline",
      "Run a deployed pipeline of this organization with the given inputs and return its outputs.",
      z.object({ pipeline_id: z.string().min(1).max(64), inputs: z.record(z.string(), z.unknown()).default({}) }),
      (a) => `Pipeline/${a.pipeline_id}`,
      (a) => services.runPipeline(a.pipeline_id, a.inputs),
    ),
    define(
      "terminology_lookup",
      "Look up the display name of a LOINC or SNOMED CT code. `system` is loinc, snomed or a code system URI.",
      z.object({ system: z.string().min(1).max(200), code: z.string().min(1).max(64) }),
      () => undefined,
      (a) => lookupDisplay(a.system, a.code, () => services.fhir()),
    ),
  ];
  const vitals = services.vitals;
  if (vitals) {
    tools.push(
      define(
        "vitals_query",
        "Wearable and device readings of a patient for one metric over the last days, with min, max, average and count.",
        z.object({ patient_id: Id, metric: z.string().min(1).max(40), days: z.number().int().min(1).max(365).default(7) }),
        (a) => `Patient/${a.patient_id}`,
        (a) => vitals({ patientId: a.patient_id, metric: a.metric, days: a.days }),
      ),
    );
  }
  return tools;
}
