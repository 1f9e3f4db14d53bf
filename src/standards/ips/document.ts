// Builds the IPS document Bundle (Bundle-uv-ips) from one patient's record: the Composition
// first, the Patient, the entries of each section, then what those entries reference. Pure:
// the record comes from the caller ($summary reads the store, the node reads the port or a
// Bundle), so the same builder serves both.
import type { Bundle, BundleEntry, Resource } from "../../platform/fhir-resource";
import { compositionNarrative, conceptText, sectionNarrative } from "./narrative";
import { SECTIONS, type SectionRule, sectionCoding } from "./sections";

export const IPS_BUNDLE_PROFILE = "http://hl7.org/fhir/uv/ips/StructureDefinition/Bundle-uv-ips";
export const IPS_COMPOSITION_PROFILE = "http://hl7.org/fhir/uv/ips/StructureDefinition/Composition-uv-ips";
const LIST_EMPTY_REASON = "http://terminology.hl7.org/CodeSystem/list-empty-reason";

/** A resource of the record with the fullUrl it is known under (absolute, or urn:uuid:). */
export interface RecordEntry {
  fullUrl: string;
  resource: Resource;
}

/** A resource type the record reader did not read whole (docs/ips.md: which ones it keeps): said in the narrative, never silent. */
export interface RecordShortfall {
  type: string;
  /** Resources of the type read. */
  included: number;
  /** Resources of the type there are, when the reader knows (otherwise: more than `included`). */
  total?: number;
}

export interface SummaryInput {
  patient: RecordEntry;
  /** The patient's record: compartment members and what they reference (the patient may be among them). */
  record: RecordEntry[];
  /** The document's time (Bundle.timestamp, Composition.date); now by default. */
  now?: string;
  /** The author's name: the software generating the summary (Composition.author is a Device). */
  generator?: string;
  /** What the reader left out: named in the Composition's narrative and in each section taking that type. */
  incomplete?: readonly RecordShortfall[];
}

const shortfallNote = (s: RecordShortfall) =>
  `This summary is incomplete: ${s.included} of the ${s.total ?? `more than ${s.included}`} ${s.type} resources in the record were read.`;

/** The notes for a section: the shortfalls of the types it takes (a Device is taken as its generated DeviceUseStatement). */
const sectionNotes = (rule: SectionRule, incomplete: readonly RecordShortfall[]) =>
  incomplete.filter((s) => rule.types.includes(s.type) || (s.type === "Device" && rule.types.includes("DeviceUseStatement"))).map(shortfallNote);

/** Resources never put in a summary: the record's audit trail and provenance are not clinical content. */
const EXCLUDED = new Set(["AuditEvent", "Provenance", "Subscription", "Bundle"]);

const uuid = () => crypto.randomUUID();
const key = (type: string, id: string | undefined) => `${type}/${id ?? ""}`;

/** Calls `found` with every `reference` string inside a resource (contained resources included). */
function eachReference(value: unknown, found: (reference: string) => void): void {
  if (Array.isArray(value)) for (const v of value) eachReference(v, found);
  else if (value && typeof value === "object") {
    const o = value as Record<string, unknown>;
    for (const k in o) {
      const v = o[k];
      if (k === "reference" && typeof v === "string") found(v);
      else if (v && typeof v === "object") eachReference(v, found);
    }
  }
}

/** Finds record entries by a reference as written: "Type/id", "Type/id/_history/n", or a fullUrl. */
class RecordIndex {
  private readonly byKey = new Map<string, RecordEntry>();
  private readonly byUrl = new Map<string, RecordEntry>();

  constructor(entries: RecordEntry[]) {
    for (const e of entries) this.add(e);
  }

  add(e: RecordEntry): void {
    this.byKey.set(key(e.resource.resourceType, e.resource.id), e);
    this.byUrl.set(e.fullUrl, e);
  }

  find(reference: string): RecordEntry | undefined {
    const exact = this.byUrl.get(reference) ?? this.byKey.get(reference);
    if (exact) return exact;
    const segs = reference.split("/_history/")[0]!.split("/");
    return segs.length >= 2 ? this.byKey.get(`${segs[segs.length - 2]}/${segs[segs.length - 1]}`) : undefined;
  }
}

const refersTo = (resource: Resource, field: string, target: RecordEntry, index: RecordIndex) => {
  const ref = (resource[field] as { reference?: string } | undefined)?.reference;
  return ref !== undefined && index.find(ref) === target;
};

/**
 * Device use statements for the patient's devices no statement covers (wearables register a
 * Device with `patient`): the IPS Medical Devices section lists DeviceUseStatements, and
 * Device.patient is exactly the statement that the patient uses the device.
 */
function deviceUse(patient: RecordEntry, record: RecordEntry[], index: RecordIndex, now: string): RecordEntry[] {
  const statements = record.filter((e) => e.resource.resourceType === "DeviceUseStatement");
  return record
    .filter((e) => e.resource.resourceType === "Device" && refersTo(e.resource, "patient", patient, index))
    .filter((e) => !["inactive", "entered-in-error"].includes(e.resource.status as string))
    .filter((device) => !statements.some((s) => refersTo(s.resource, "device", device, index)))
    .map((device) => {
      const id = uuid();
      const resource: Resource = {
        resourceType: "DeviceUseStatement",
        id,
        status: "active",
        subject: { reference: patient.fullUrl },
        device: { reference: device.fullUrl },
        recordedOn: now,
      };
      return { fullUrl: `urn:uuid:${id}`, resource };
    });
}

function patientName(patient: Resource): string {
  const name = (patient.name as { text?: string; given?: string[]; family?: string }[] | undefined)?.[0];
  return name?.text ?? ([...(name?.given ?? []), name?.family].filter(Boolean).join(" ") || "the patient");
}

function section(rule: SectionRule, entries: RecordEntry[], index: RecordIndex, notes: string[]) {
  const display = (ref: unknown) => {
    const r = (ref as { reference?: string } | undefined)?.reference;
    const target = r ? index.find(r)?.resource : undefined;
    return target ? (conceptText(target.code) ?? (target.deviceName as { name?: string }[] | undefined)?.[0]?.name) : undefined;
  };
  const base = {
    title: rule.title,
    code: sectionCoding(rule),
    text: sectionNarrative(
      entries.map((e) => e.resource),
      display,
      `No information about ${rule.title.toLowerCase()} is available.`,
      notes,
    ),
  };
  if (entries.length) return { ...base, entry: entries.map((e) => ({ reference: e.fullUrl })) };
  return { ...base, emptyReason: { coding: [{ system: LIST_EMPTY_REASON, code: "unavailable", display: "Unavailable" }] } };
}

/** The IPS document for `input.patient`: required sections always, the others when they have entries. */
export function buildSummary(input: SummaryInput): Bundle {
  const now = input.now ?? new Date().toISOString();
  const { patient } = input;
  const patientKey = key("Patient", patient.resource.id);
  const seen = new Set<string>([patient.fullUrl]);
  // Once each (a Device can be both referenced and found by Device.patient); never the audit trail.
  const record = input.record.filter((e) => {
    if (seen.has(e.fullUrl) || EXCLUDED.has(e.resource.resourceType) || key(e.resource.resourceType, e.resource.id) === patientKey) return false;
    seen.add(e.fullUrl);
    return true;
  });
  const index = new RecordIndex([patient, ...record]);
  const uses = deviceUse(patient, record, index, now);
  for (const e of uses) index.add(e);
  const candidates = [...record, ...uses];

  // Each resource in the first section that accepts it.
  const bySection = new Map<SectionRule, RecordEntry[]>(SECTIONS.map((rule) => [rule, []]));
  const placed = new Set<RecordEntry>();
  for (const e of candidates) {
    const rule = SECTIONS.find((r) => r.types.includes(e.resource.resourceType) && r.accepts(e.resource));
    if (!rule) continue;
    bySection.get(rule)!.push(e);
    placed.add(e);
  }
  const sections = SECTIONS.flatMap((rule) => {
    const entries = bySection.get(rule)!;
    return entries.length || rule.required ? [section(rule, entries, index, sectionNotes(rule, input.incomplete ?? []))] : [];
  });

  // What the section entries reference (medications, devices, practitioners, members), transitively.
  const included = new Set<RecordEntry>([patient, ...placed]);
  let frontier = [...placed];
  const custodian = index.find((patient.resource.managingOrganization as { reference?: string } | undefined)?.reference ?? "");
  if (custodian) frontier.push(custodian);
  while (frontier.length) {
    const next: RecordEntry[] = [];
    const follow = (ref: string) => {
      const target = index.find(ref);
      if (target && !included.has(target) && !EXCLUDED.has(target.resource.resourceType)) {
        included.add(target);
        next.push(target);
      }
    };
    for (const e of frontier) {
      included.add(e);
      eachReference(e.resource, follow);
    }
    frontier = next;
  }

  const authorId = uuid();
  const author: RecordEntry = {
    fullUrl: `urn:uuid:${authorId}`,
    resource: {
      resourceType: "Device",
      id: authorId,
      deviceName: [{ name: input.generator ?? "IPS summary generator", type: "manufacturer-name" }],
    },
  };
  const title = "International Patient Summary";
  const compositionId = uuid();
  const composition: Resource = {
    resourceType: "Composition",
    id: compositionId,
    meta: { profile: [IPS_COMPOSITION_PROFILE] },
    text: compositionNarrative(title, patientName(patient.resource), now, (input.incomplete ?? []).map(shortfallNote)),
    status: "final",
    type: { coding: [{ system: "http://loinc.org", code: "60591-5", display: "Patient summary Document" }] },
    subject: { reference: patient.fullUrl },
    date: now,
    author: [{ reference: author.fullUrl }],
    title,
    ...(custodian?.resource.resourceType === "Organization" ? { custodian: { reference: custodian.fullUrl } } : {}),
    section: sections,
  };

  const rest = [...included].filter((e) => e !== patient);
  const entry: BundleEntry[] = [{ fullUrl: `urn:uuid:${compositionId}`, resource: composition }, patient, ...rest, author].map((e) => ({
    fullUrl: e.fullUrl,
    resource: e.resource,
  }));
  const id = uuid();
  return {
    resourceType: "Bundle",
    id,
    meta: { profile: [IPS_BUNDLE_PROFILE] },
    identifier: { system: "urn:ietf:rfc:3986", value: `urn:uuid:${id}` },
    type: "document",
    timestamp: now,
    entry,
  };
}
