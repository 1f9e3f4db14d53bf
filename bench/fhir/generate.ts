// Deterministic generator of a realistic organization: patients with encounters, observations
// (vitals and labs over five years), conditions and medication requests, as transaction Bundles.
import type { Bundle, BundleEntry, Resource } from "../../src/features/fhir/port";
import { seededRandom } from "../../scripts/lib/seeded-random";


const FAMILIES = ["Smith", "Johnson", "Williams", "Brown", "Jones", "García", "Miller", "Davis", "Rodríguez", "Martínez", "Hernández", "López", "González", "Wilson", "Anderson", "Thomas", "Taylor", "Moore", "Jackson", "Martin", "Lee", "Pérez", "Thompson", "White", "Harris", "Sánchez", "Clark", "Ramírez", "Lewis", "Robinson"];
const GIVEN = ["James", "Mary", "John", "Patricia", "Robert", "Jennifer", "Michael", "Linda", "William", "Elizabeth", "David", "Barbara", "Richard", "Susan", "José", "Jessica", "Thomas", "Sarah", "Charles", "Karen", "Zoë", "Chloé"];
export const VITALS = [
  { code: "8480-6", display: "Systolic blood pressure", unit: "mm[Hg]", min: 95, max: 170 },
  { code: "8462-4", display: "Diastolic blood pressure", unit: "mm[Hg]", min: 55, max: 105 },
  { code: "8867-4", display: "Heart rate", unit: "/min", min: 50, max: 120 },
  { code: "29463-7", display: "Body weight", unit: "kg", min: 45, max: 130 },
  { code: "2339-0", display: "Glucose", unit: "mg/dL", min: 60, max: 250 },
  { code: "4548-4", display: "Hemoglobin A1c", unit: "%", min: 4, max: 11 },
];
const CONDITIONS = [["44054006", "Diabetes mellitus type 2"], ["38341003", "Hypertension"], ["195967001", "Asthma"], ["13645005", "COPD"], ["35489007", "Depression"], ["49436004", "Atrial fibrillation"], ["40055000", "Chronic kidney disease"], ["55822004", "Hyperlipidemia"]];
const MEDS = [["860975", "Metformin 500 MG"], ["314076", "Lisinopril 10 MG"], ["617312", "Atorvastatin 20 MG"], ["745679", "Albuterol inhaler"], ["312938", "Sertraline 50 MG"], ["855332", "Warfarin 5 MG"]];

const START = Date.UTC(2020, 0, 1);
const SPAN = 5 * 365 * 86_400_000;

export interface GenOptions {
  patients: number;
  encountersPerPatient: number;
  observationsPerPatient: number;
  conditionsPerPatient: number;
  medicationsPerPatient: number;
  seed: number;
}

export const DEFAULTS: GenOptions = { patients: 1000, encountersPerPatient: 5, observationsPerPatient: 80, conditionsPerPatient: 8, medicationsPerPatient: 7, seed: 42 };

const uuid = (r: () => number) =>
  "xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx".replace(/[xy]/g, (c) => {
    const n = Math.floor(r() * 16);
    return (c === "x" ? n : (n & 0x3) | 0x8).toString(16);
  });

const pick = <T>(r: () => number, a: readonly T[]): T => a[Math.floor(r() * a.length)]!;
const dateAt = (r: () => number) => new Date(START + Math.floor(r() * SPAN)).toISOString().replace(/\.\d{3}Z$/, "Z");

function entry(resource: Resource, fullUrl: string): BundleEntry {
  return { fullUrl, resource, request: { method: "POST", url: resource.resourceType } };
}

/** One transaction per patient: the patient and everything about them, linked by urn:uuid. */
export function* patientBundles(opts: GenOptions = DEFAULTS): Generator<Bundle> {
  const r = seededRandom(opts.seed);
  for (let i = 0; i < opts.patients; i++) {
    const pid = `urn:uuid:${uuid(r)}`;
    const entries: BundleEntry[] = [
      entry(
        {
          resourceType: "Patient",
          identifier: [{ system: "urn:bench:mrn", value: `MRN${String(i).padStart(6, "0")}` }],
          name: [{ family: pick(r, FAMILIES), given: [pick(r, GIVEN)] }],
          gender: r() < 0.5 ? "female" : "male",
          birthDate: new Date(Date.UTC(1930 + Math.floor(r() * 80), Math.floor(r() * 12), 1 + Math.floor(r() * 28))).toISOString().slice(0, 10),
          address: [{ city: pick(r, ["Springfield", "Riverside", "Fairview", "Madison"]), postalCode: String(10000 + Math.floor(r() * 89999)) }],
        },
        pid,
      ),
    ];
    const encounters: string[] = [];
    for (let e = 0; e < opts.encountersPerPatient; e++) {
      const eid = `urn:uuid:${uuid(r)}`;
      encounters.push(eid);
      const start = dateAt(r);
      entries.push(entry({ resourceType: "Encounter", status: "finished", class: { system: "http://terminology.hl7.org/CodeSystem/v3-ActCode", code: pick(r, ["AMB", "IMP", "EMER"]) }, subject: { reference: pid }, period: { start, end: start } }, eid));
    }
    for (let o = 0; o < opts.observationsPerPatient; o++) {
      const v = pick(r, VITALS);
      entries.push(
        entry(
          {
            resourceType: "Observation",
            status: "final",
            category: [{ coding: [{ system: "http://terminology.hl7.org/CodeSystem/observation-category", code: v.code.startsWith("8") || v.code === "29463-7" ? "vital-signs" : "laboratory" }] }],
            code: { coding: [{ system: "http://loinc.org", code: v.code, display: v.display }] },
            subject: { reference: pid },
            encounter: { reference: pick(r, encounters) },
            effectiveDateTime: dateAt(r),
            valueQuantity: { value: Math.round((v.min + r() * (v.max - v.min)) * 10) / 10, unit: v.unit, system: "http://unitsofmeasure.org", code: v.unit },
          },
          `urn:uuid:${uuid(r)}`,
        ),
      );
    }
    for (let c = 0; c < opts.conditionsPerPatient; c++) {
      const [code, display] = pick(r, CONDITIONS);
      entries.push(entry({ resourceType: "Condition", clinicalStatus: { coding: [{ system: "http://terminology.hl7.org/CodeSystem/condition-clinical", code: "active" }] }, code: { coding: [{ system: "http://snomed.info/sct", code, display }] }, subject: { reference: pid }, onsetDateTime: dateAt(r) }, `urn:uuid:${uuid(r)}`));
    }
    for (let m = 0; m < opts.medicationsPerPatient; m++) {
      const [code, display] = pick(r, MEDS);
      entries.push(entry({ resourceType: "MedicationRequest", status: "active", intent: "order", medicationCodeableConcept: { coding: [{ system: "http://www.nlm.nih.gov/research/umls/rxnorm", code, display }] }, subject: { reference: pid }, authoredOn: dateAt(r) }, `urn:uuid:${uuid(r)}`));
    }
    yield { resourceType: "Bundle", type: "transaction", entry: entries };
  }
}
