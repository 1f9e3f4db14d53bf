// Where a patient's record comes from for a summary: the store's $everything (the operation),
// the FHIR port (the pipeline node, which has only read and search), or a Bundle already in
// hand (a pipeline's converted message). Each yields the Patient and its record with fullUrls.
import { ApiError } from "../../platform/errors";
import { isPrototypeKey } from "../../platform/object-keys";
import type { Bundle, FhirPort, Resource } from "../../features/fhir/port";
import type { RecordEntry } from "./document";
import { SECTION_RESOURCE_TYPES } from "./sections";

export interface PatientRecord {
  patient: RecordEntry;
  record: RecordEntry[];
}

/** The Bundle's entries with a resource and a fullUrl, as they are (the builder copies what it keeps, so nothing is re-wrapped here). */
export const entriesOf = (bundle: Bundle): RecordEntry[] => (bundle.entry ?? []).filter((e): e is RecordEntry => e.resource !== undefined && e.fullUrl !== undefined);

/** A Patient/$everything Bundle: the patient is one of its entries. */
export function recordFromEverything(bundle: Bundle, patientId: string): PatientRecord {
  const record = entriesOf(bundle);
  const patient = record.find((e) => e.resource.resourceType === "Patient" && e.resource.id === patientId);
  if (!patient) throw new ApiError(404, "NOT_FOUND", `Patient/${patientId} not found`);
  return { patient, record };
}

/** A Bundle holding exactly one Patient and what is known about it (an HL7 v2 conversion's transaction). */
export function recordFromBundle(bundle: Bundle): PatientRecord {
  const record = entriesOf(bundle);
  const patients = record.filter((e) => e.resource.resourceType === "Patient");
  if (patients.length !== 1) throw new ApiError(422, "IPS_NO_SINGLE_PATIENT", `The Bundle must hold exactly one Patient, it holds ${patients.length}`);
  return { patient: patients[0]!, record };
}

/** At most this many referenced resources (medications, practitioners) are read one by one. */
const MAX_REFERENCED_READS = 200;

/**
 * The patient's section resources through the port's searches, then what they reference. The
 * port's fullUrls may be relative to the service, so the record is re-keyed on urn:uuid fullUrls
 * with its references rewritten: the document then stands alone wherever it is sent.
 */
export async function recordFromPort(port: FhirPort, patientId: string): Promise<PatientRecord> {
  const patientResource = await port.read("Patient", patientId);
  const patient = { fullUrl: `Patient/${patientId}`, resource: patientResource };
  const pages = await Promise.all(SECTION_RESOURCE_TYPES.map((type) => port.search(type, `patient=Patient/${encodeURIComponent(patientId)}&_count=1000`)));
  const record = pages.flatMap(entriesOf);
  const known = new Set(record.map((e) => `${e.resource.resourceType}/${e.resource.id}`));
  const wanted = new Set<string>();
  for (const e of record) {
    for (const ref of JSON.stringify(e.resource).matchAll(/"reference":"([A-Z][A-Za-z]+\/[A-Za-z0-9\-.]{1,64})"/g)) {
      if (!known.has(ref[1]!) && ref[1] !== `Patient/${patientId}`) wanted.add(ref[1]!);
    }
  }
  const reads = await Promise.all(
    [...wanted].slice(0, MAX_REFERENCED_READS).map(async (ref): Promise<RecordEntry | undefined> => {
      const [type, id] = ref.split("/") as [string, string];
      try {
        return { fullUrl: ref, resource: (await port.read(type, id)) as Resource };
      } catch {
        return undefined; // a dangling or unreadable reference leaves the entry without its target
      }
    }),
  );
  const all = [patient, ...record.map((e) => ({ ...e, fullUrl: `${e.resource.resourceType}/${e.resource.id}` })), ...reads.filter((r): r is RecordEntry => r !== undefined)];
  const [urnPatient, ...urnRecord] = withUrnFullUrls(all);
  return { patient: urnPatient!, record: urnRecord };
}

/** The entries under urn:uuid fullUrls, each "Type/id" reference to one of them rewritten to its urn. */
export function withUrnFullUrls(entries: RecordEntry[]): RecordEntry[] {
  const urns = new Map(entries.map((e) => [`${e.resource.resourceType}/${e.resource.id}`, `urn:uuid:${crypto.randomUUID()}`]));
  const rewrite = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(rewrite);
    if (!value || typeof value !== "object") return value;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      if (isPrototypeKey(k)) continue; // never set a prototype from input
      out[k] = k === "reference" && typeof v === "string" ? (urns.get(v.split("/_history/")[0]!) ?? v) : rewrite(v);
    }
    return out;
  };
  return entries.map((e) => ({ fullUrl: urns.get(`${e.resource.resourceType}/${e.resource.id}`)!, resource: rewrite(e.resource) as Resource }));
}
