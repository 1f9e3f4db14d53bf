// Where a patient's record comes from for a summary: the store's $everything (the operation),
// the FHIR port (the pipeline node, which has only read and search), or a Bundle already in
// hand (a pipeline's converted message). Each yields the Patient and its record with fullUrls.
import { ApiError } from "../../platform/errors";
import { isPrototypeKey } from "../../platform/object-keys";
import type { Bundle, FhirPort, Resource } from "../../features/fhir";
import type { RecordEntry, RecordShortfall } from "./document";
import { SECTION_RESOURCE_TYPES } from "./sections";

export interface PatientRecord {
  patient: RecordEntry;
  record: RecordEntry[];
  /** The types the reader did not read whole (named in the document's narrative). */
  incomplete: RecordShortfall[];
}

/**
 * At most this many resources of each type are read for one summary, the most recently updated:
 * years of a wearable's readings (hundreds of thousands of Observations) fit neither a Worker's
 * memory nor a readable document. A type over it is named in the document's narrative.
 */
export const MAX_PER_TYPE = 10_000;

/** The Patient compartment's types a summary reads: the patient and its sections' (Device is outside the R4 compartment: read by Device.patient). */
export const COMPARTMENT_TYPES: readonly string[] = ["Patient", ...SECTION_RESOURCE_TYPES.filter((t) => t !== "Device")];

/** A search's matches through every page (its next links), up to `max`; `more` when matches were left. */
export async function searchAll(port: Pick<FhirPort, "search">, type: string, query: string, max: number): Promise<{ entries: RecordEntry[]; more: boolean }> {
  const entries: RecordEntry[] = [];
  let next: string | undefined = query;
  while (next !== undefined && entries.length < max) {
    const page = await port.search(type, next);
    entries.push(...entriesOf(page));
    const link = page.link?.find((l) => l.relation === "next")?.url;
    next = link === undefined ? undefined : link.slice(link.indexOf("?") + 1);
  }
  return { entries: entries.slice(0, max), more: next !== undefined || entries.length > max };
}

/** The shortfall of a paged read that stopped at `max` with matches left. */
export const shortfallOf = (type: string, read: { entries: RecordEntry[]; more: boolean }, total?: number): RecordShortfall[] =>
  read.more ? [{ type, included: read.entries.length, ...(total !== undefined ? { total } : {}) }] : [];

/** The Bundle's entries with a resource and a fullUrl, as they are (the builder copies what it keeps, so nothing is re-wrapped here). */
export const entriesOf = (bundle: Bundle): RecordEntry[] => (bundle.entry ?? []).filter((e): e is RecordEntry => e.resource !== undefined && e.fullUrl !== undefined);

/** A Patient/$everything Bundle and what its read left out: the patient is one of its entries; the read's OperationOutcome is not. */
export function recordFromEverything(bundle: Bundle, patientId: string, incomplete: RecordShortfall[] = []): PatientRecord {
  const record = entriesOf(bundle);
  const patient = record.find((e) => e.resource.resourceType === "Patient" && e.resource.id === patientId);
  if (!patient) throw new ApiError(404, "NOT_FOUND", `Patient/${patientId} not found`);
  return { patient, record, incomplete };
}

/** A Bundle holding exactly one Patient and what is known about it (an HL7 v2 conversion's transaction). */
export function recordFromBundle(bundle: Bundle): PatientRecord {
  const record = entriesOf(bundle);
  const patients = record.filter((e) => e.resource.resourceType === "Patient");
  if (patients.length !== 1) throw new ApiError(422, "IPS_NO_SINGLE_PATIENT", `The Bundle must hold exactly one Patient, it holds ${patients.length}`);
  return { patient: patients[0]!, record, incomplete: [] };
}

/** At most this many referenced resources (medications, practitioners) are read one by one; the rest are named as left out. */
const MAX_REFERENCED_READS = 200;

/**
 * The patient's section resources through the port's searches (every page, newest first, up to
 * MAX_PER_TYPE each), then what they reference. The port's fullUrls may be relative to the
 * service, so the record is re-keyed on urn:uuid fullUrls with its references rewritten: the
 * document then stands alone wherever it is sent.
 */
export async function recordFromPort(port: FhirPort, patientId: string): Promise<PatientRecord> {
  const patientResource = await port.read("Patient", patientId);
  const patient = { fullUrl: `Patient/${patientId}`, resource: patientResource };
  const query = `patient=Patient/${encodeURIComponent(patientId)}&_sort=-_lastUpdated&_count=1000`;
  const reads = await Promise.all(SECTION_RESOURCE_TYPES.map(async (type) => ({ type, read: await searchAll(port, type, query, MAX_PER_TYPE) })));
  const record = reads.flatMap((r) => r.read.entries);
  const incomplete = reads.flatMap((r) => shortfallOf(r.type, r.read));
  const known = new Set(record.map((e) => `${e.resource.resourceType}/${e.resource.id}`));
  const wanted = new Set<string>();
  for (const e of record) {
    for (const ref of JSON.stringify(e.resource).matchAll(/"reference":"([A-Z][A-Za-z]+\/[A-Za-z0-9\-.]{1,64})"/g)) {
      if (!known.has(ref[1]!) && ref[1] !== `Patient/${patientId}`) wanted.add(ref[1]!);
    }
  }
  const targets = [...wanted];
  const referenced = await Promise.all(
    targets.slice(0, MAX_REFERENCED_READS).map(async (ref): Promise<RecordEntry | undefined> => {
      const [type, id] = ref.split("/") as [string, string];
      try {
        return { fullUrl: ref, resource: (await port.read(type, id)) as Resource };
      } catch {
        return undefined; // a dangling or unreadable reference leaves the entry without its target
      }
    }),
  );
  // Targets beyond the bound, by type: each type with targets left unread is named.
  const byType = new Map<string, RecordShortfall>();
  targets.forEach((ref, i) => {
    const type = ref.split("/")[0]!;
    const t = byType.get(type) ?? { type, included: 0, total: 0 };
    t.total!++;
    if (i < MAX_REFERENCED_READS) t.included++;
    byType.set(type, t);
  });
  incomplete.push(...[...byType.values()].filter((t) => t.included < t.total!));
  const entries = [patient, ...record.map((e) => ({ ...e, fullUrl: `${e.resource.resourceType}/${e.resource.id}` })), ...referenced.filter((r): r is RecordEntry => r !== undefined)];
  const [urnPatient, ...urnRecord] = withUrnFullUrls(entries);
  return { patient: urnPatient!, record: urnRecord, incomplete };
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
