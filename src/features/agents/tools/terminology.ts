// Terminology lookup for agents: displays of LOINC and SNOMED CT codes. A small
// table of codes this service itself uses (FHIR vital signs, device codes, IPS
// sections, common problems) answers first; otherwise the display the org's own
// data records for that code.
import type { FhirPort } from "../../fhir";
import { lookupTables } from "../../../platform/object-keys";

export const LOINC = "http://loinc.org";
export const SNOMED = "http://snomed.info/sct";

const KNOWN = lookupTables<string>({
  [LOINC]: {
    "85353-1": "Vital signs, weight, height, head circumference, oxygen saturation and BMI panel",
    "9279-1": "Respiratory rate",
    "8867-4": "Heart rate",
    "2708-6": "Oxygen saturation in Arterial blood",
    "59408-5": "Oxygen saturation in Arterial blood by Pulse oximetry",
    "8310-5": "Body temperature",
    "8302-2": "Body height",
    "9843-4": "Head Occipital-frontal circumference",
    "29463-7": "Body weight",
    "39156-5": "Body mass index (BMI) [Ratio]",
    "85354-9": "Blood pressure panel with all children optional",
    "8480-6": "Systolic blood pressure",
    "8462-4": "Diastolic blood pressure",
    "2339-0": "Glucose [Mass/volume] in Blood",
    "4548-4": "Hemoglobin A1c/Hemoglobin.total in Blood",
    "60591-5": "Patient summary Document",
    "11450-4": "Problem list - Reported",
    "48765-2": "Allergies and adverse reactions Document",
    "10160-0": "History of Medication use Narrative",
  },
  [SNOMED]: {
    "38341003": "Hypertensive disorder, systemic arterial (disorder)",
    "73211009": "Diabetes mellitus (disorder)",
    "44054006": "Diabetes mellitus type 2 (disorder)",
    "195967001": "Asthma (disorder)",
    "22298006": "Myocardial infarction (disorder)",
    "49436004": "Atrial fibrillation (disorder)",
    "386661006": "Fever (finding)",
    "29857009": "Chest pain (finding)",
    "267036007": "Dyspnea (finding)",
  },
});

export function systemUri(system: string): string {
  const s = system.trim().toLowerCase();
  if (s === "loinc" || s === LOINC) return LOINC;
  if (s === "snomed" || s === "snomed-ct" || s === "sct" || s === SNOMED) return SNOMED;
  return system.trim();
}

interface Coding {
  system?: string;
  code?: string;
  display?: string;
}

function displayIn(resource: unknown, system: string, code: string): string | undefined {
  const codings = ((resource as { code?: { coding?: Coding[] } }).code?.coding ?? []).filter(
    (c) => c.system === system && c.code === code && c.display,
  );
  return codings[0]?.display;
}

/** Types whose `code` element is searchable by token in FHIR R4. */
const CODED_TYPES = ["Observation", "Condition", "Procedure", "AllergyIntolerance"];

export async function lookupDisplay(
  systemIn: string,
  code: string,
  fhir: () => FhirPort,
): Promise<{ system: string; code: string; display: string; source: "built-in" | "organization-data" } | { system: string; code: string; found: false }> {
  const system = systemUri(systemIn);
  const known = KNOWN[system]?.[code];
  if (known) return { system, code, display: known, source: "built-in" };
  const store = fhir();
  for (const type of CODED_TYPES) {
    const bundle = await store.search(type, `code=${encodeURIComponent(`${system}|${code}`)}&_count=1`);
    const display = bundle.entry?.map((e) => displayIn(e.resource, system, code)).find(Boolean);
    if (display) return { system, code, display, source: "organization-data" };
  }
  return { system, code, found: false };
}
