// The IPS Composition's sections (Composition-uv-ips, STU2): LOINC code, title, whether the
// Creator must always populate it, and which of a patient's resources belong in it. Every
// resource goes into the first section that claims it, in this order, so an Observation is
// pregnancy before vital signs before social history before results.
import type { Resource } from "../../platform/fhir-resource";

export interface SectionRule {
  /** Slice name in Composition-uv-ips. */
  key: string;
  code: string;
  display: string;
  title: string;
  /** Problems, Allergies, Medications: present with entries or emptyReason (ips-comp-1). */
  required: boolean;
  /** The resource types it takes (a fast first cut before `accepts`). */
  types: readonly string[];
  /** Whether a resource of the record belongs in this section. */
  accepts(resource: Resource): boolean;
}

type Coded = { coding?: { system?: string; code?: string }[] };

const LOINC = "http://loinc.org";

const codesOf = (value: unknown): string[] => {
  const list = Array.isArray(value) ? value : value ? [value] : [];
  return list.flatMap((c: Coded) => (c.coding ?? []).map((x) => x.code ?? ""));
};

/** Whether a CodeableConcept (or a list of them) carries one of `codes`: runs for every record entry, so it builds no arrays. */
const codeIn = (value: unknown, codes: ReadonlySet<string>) => {
  for (const c of (Array.isArray(value) ? value : value ? [value] : []) as Coded[]) {
    for (const x of c.coding ?? []) if (codes.has(x.code ?? "")) return true;
  }
  return false;
};
const field = (r: Resource, name: string) => r[name] as unknown;
const status = (r: Resource) => (typeof r.status === "string" ? r.status : undefined);
const isType = (r: Resource, ...types: string[]) => types.includes(r.resourceType);
const notErroneous = (r: Resource) => status(r) !== "entered-in-error";

/** A record entry's clinical and verification statuses, for Condition and AllergyIntolerance. */
const clinical = (r: Resource) => codesOf(field(r, "clinicalStatus"))[0];
const refuted = (r: Resource) => ["entered-in-error", "refuted"].includes(codesOf(field(r, "verificationStatus"))[0] ?? "");

const PAST = new Set(["inactive", "remission", "resolved"]);
const isCondition = (r: Resource) => isType(r, "Condition") && !refuted(r);

const observationCategory = (r: Resource, codes: ReadonlySet<string>) => codeIn(field(r, "category"), codes);
const VITAL_SIGNS = new Set(["vital-signs"]);
const SOCIAL_HISTORY = new Set(["social-history"]);
const RESULT_CATEGORIES = new Set(["laboratory", "imaging", "procedure", "exam"]);
const FUNCTIONAL = new Set(["functional"]);
const ADVANCE_DIRECTIVE = new Set(["adr"]);

/** IPS ValueSet pregnancy status (82810-3) and the pregnancy-outcome codes IPS lists. */
const PREGNANCY = new Set(["82810-3", "11636-8", "11637-6", "11638-4", "11639-2", "11640-0", "11612-9", "11613-7", "11614-5", "33065-4"]);

/** ips-2/ips-3: a result says something (a value, members, components with values) or why it does not. */
export function observationHasResult(r: Resource): boolean {
  const components = (field(r, "component") as Record<string, unknown>[] | undefined) ?? [];
  const componentsOk = components.every((c) => Object.keys(c).some((k) => k.startsWith("value") || k === "dataAbsentReason"));
  const says = Object.keys(r).some((k) => k.startsWith("value")) || r.hasMember !== undefined || components.length > 0 || r.dataAbsentReason !== undefined;
  return says && componentsOk;
}

/** ips-1: an effectiveDateTime of at least day precision (a month-only date is no result date). */
const dayPrecise = (r: Resource) => typeof r.effectiveDateTime !== "string" || r.effectiveDateTime.length >= 10;

const isResult = (r: Resource) =>
  (isType(r, "Observation") && observationHasResult(r) && dayPrecise(r) && notErroneous(r) && status(r) !== "cancelled") ||
  (isType(r, "DiagnosticReport") && notErroneous(r) && status(r) !== "cancelled");

export const SECTIONS: readonly SectionRule[] = [
  {
    key: "sectionProblems",
    code: "11450-4",
    display: "Problem list - Reported",
    title: "Problem List",
    required: true,
    types: ["Condition"],
    accepts: (r) => isCondition(r) && !PAST.has(clinical(r) ?? "") && !codeIn(field(r, "category"), FUNCTIONAL),
  },
  {
    key: "sectionAllergies",
    code: "48765-2",
    display: "Allergies and adverse reactions Document",
    title: "Allergies and Intolerances",
    required: true,
    types: ["AllergyIntolerance"],
    accepts: (r) => isType(r, "AllergyIntolerance") && !refuted(r) && !["inactive", "resolved"].includes(clinical(r) ?? ""),
  },
  {
    key: "sectionMedications",
    code: "10160-0",
    display: "History of Medication use Narrative",
    title: "Medication List",
    required: true,
    types: ["MedicationStatement", "MedicationRequest"],
    accepts: (r) =>
      (isType(r, "MedicationStatement") && ["active", "intended", "unknown", "on-hold"].includes(status(r) ?? "")) ||
      (isType(r, "MedicationRequest") && ["active", "unknown", "on-hold"].includes(status(r) ?? "")),
  },
  {
    key: "sectionImmunizations",
    code: "11369-6",
    display: "History of Immunization Narrative",
    title: "Immunizations",
    required: false,
    types: ["Immunization"],
    accepts: (r) => isType(r, "Immunization") && notErroneous(r),
  },
  {
    key: "sectionPregnancyHx",
    code: "10162-6",
    display: "History of pregnancies Narrative",
    title: "History of Pregnancy",
    required: false,
    types: ["Observation"],
    accepts: (r) => isType(r, "Observation") && notErroneous(r) && codeIn(field(r, "code"), PREGNANCY) && observationHasResult(r),
  },
  {
    key: "sectionVitalSigns",
    code: "8716-3",
    display: "Vital signs",
    title: "Vital Signs",
    required: false,
    types: ["Observation"],
    accepts: (r) => isType(r, "Observation") && notErroneous(r) && observationCategory(r, VITAL_SIGNS) && observationHasResult(r),
  },
  {
    key: "sectionSocialHistory",
    code: "29762-2",
    display: "Social history Narrative",
    title: "Social History",
    required: false,
    types: ["Observation"],
    accepts: (r) => isType(r, "Observation") && notErroneous(r) && observationCategory(r, SOCIAL_HISTORY) && observationHasResult(r),
  },
  {
    key: "sectionResults",
    code: "30954-2",
    display: "Relevant diagnostic tests/laboratory data Narrative",
    title: "Results",
    required: false,
    types: ["Observation", "DiagnosticReport"],
    accepts: (r) => isResult(r) && (isType(r, "DiagnosticReport") || observationCategory(r, RESULT_CATEGORIES)),
  },
  {
    key: "sectionProceduresHx",
    code: "47519-4",
    display: "History of Procedures Document",
    title: "History of Procedures",
    required: false,
    types: ["Procedure"],
    accepts: (r) => isType(r, "Procedure") && notErroneous(r) && status(r) !== "not-done",
  },
  {
    key: "sectionMedicalDevices",
    code: "46264-8",
    display: "History of medical device use",
    title: "Medical Devices",
    required: false,
    types: ["DeviceUseStatement"],
    accepts: (r) => isType(r, "DeviceUseStatement") && notErroneous(r),
  },
  {
    key: "sectionAlerts",
    code: "104605-1",
    display: "Alert",
    title: "Alerts",
    required: false,
    types: ["Flag"],
    accepts: (r) => isType(r, "Flag") && status(r) === "active",
  },
  {
    key: "sectionAdvanceDirectives",
    code: "42348-3",
    display: "Advance healthcare directives",
    title: "Advance Directives",
    required: false,
    types: ["Consent"],
    accepts: (r) => isType(r, "Consent") && status(r) === "active" && codeIn(field(r, "scope"), ADVANCE_DIRECTIVE),
  },
  {
    key: "sectionFunctionalStatus",
    code: "47420-5",
    display: "Functional status assessment note",
    title: "Functional Status",
    required: false,
    types: ["ClinicalImpression", "Condition"],
    accepts: (r) =>
      (isType(r, "ClinicalImpression") && status(r) === "completed") ||
      (isCondition(r) && !PAST.has(clinical(r) ?? "") && codeIn(field(r, "category"), FUNCTIONAL)),
  },
  {
    key: "sectionPastProblems",
    code: "11348-0",
    display: "History of Past illness Narrative",
    title: "History of Past Illness",
    required: false,
    types: ["Condition"],
    accepts: (r) => isCondition(r) && PAST.has(clinical(r) ?? ""),
  },
  {
    key: "sectionPlanOfCare",
    code: "18776-5",
    display: "Plan of care note",
    title: "Plan of Care",
    required: false,
    types: ["CarePlan", "ImmunizationRecommendation"],
    accepts: (r) => (isType(r, "CarePlan") && ["active", "draft", "on-hold"].includes(status(r) ?? "")) || isType(r, "ImmunizationRecommendation"),
  },
];

export const REQUIRED_SECTION_CODES = SECTIONS.filter((s) => s.required).map((s) => s.code);

/** The resource types any section takes (what a record reader needs to fetch), plus Device for device use. */
export const SECTION_RESOURCE_TYPES = [
  "Condition",
  "AllergyIntolerance",
  "MedicationStatement",
  "MedicationRequest",
  "Immunization",
  "Observation",
  "DiagnosticReport",
  "Procedure",
  "DeviceUseStatement",
  "Device",
  "Flag",
  "Consent",
  "ClinicalImpression",
  "CarePlan",
  "ImmunizationRecommendation",
] as const;

export const sectionCoding = (s: SectionRule) => ({ coding: [{ system: LOINC, code: s.code, display: s.display }] });
