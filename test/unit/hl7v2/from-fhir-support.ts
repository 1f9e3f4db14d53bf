// The round trip's comparison (from-fhir-roundtrip.test.ts): which message each sample goes
// out as, what the messages do not carry and why, and a Bundle normalised for comparison.

import type { Bundle, Resource } from "../../../src/features/fhir/port";
import type { Hl7Message, Hl7Value } from "../../../src/standards/hl7v2/message";
import type { PythonSegment } from "./python-hl7";
import type { Json } from "./support";

// ------------------------------------------------------------------ what is not carried, and why

/** The round trip of one sample, as the rules see it. */
export interface TripInfo {
  /** The sample's own type, "ADT^A02". */
  source: string;
  /** The type it was written back as, "ADT^A08". */
  target: string;
  version: string;
}

export interface NotCarried {
  /**
   * Where, as a dot path through the normalised resource ("Patient.telecom[].use"): [] steps
   * into every item of an array, ** stands for any run of steps. The path matches wherever
   * the resource is inlined too (an Observation's basedOn ServiceRequest).
   */
  path: string;
  why: string;
  /** When the rule applies (default: always). */
  when?: (trip: TripInfo) => boolean;
  /** Only where the element's parent satisfies this (a CodeableConcept's text, not a note's). */
  where?: (parent: Json) => boolean;
  /**
   * What Bundle 1's element reads back as, when the message carries something in its place;
   * without it the element is left out of both Bundles.
   */
  readsBack?: (value: unknown) => unknown;
}

export function compareVersions(a: string, b: string): number {
  const x = a.split(".").map(Number);
  const y = b.split(".").map(Number);
  for (let i = 0; i < Math.max(x.length, y.length); i++) if ((x[i] ?? 0) !== (y[i] ?? 0)) return (x[i] ?? 0) - (y[i] ?? 0);
  return 0;
}

const before = (v: string) => (t: TripInfo) => compareVersions(t.version, v) < 0;
const isConcept = (parent: Json) => Array.isArray(parent.coding);

/**
 * What the round trip does not carry. Everything else the converter maps from the samples
 * must come back equal.
 */
export const NOT_CARRIED: NotCarried[] = [
  {
    path: "Encounter.status",
    why: "PV1 has no status field: the converter takes it from the trigger event (then PV1-45, then the class), so it comes back only when the message goes out with the sample's own event",
    when: (t) => t.source !== t.target,
  },
  {
    path: "Patient.telecom[]",
    why: "a telecom use code the converter does not know (HOME, BPN...) reads as no use; written back without XTN.2 it reads as PID-13's default, home",
    readsBack: (cp) => ({ use: "home", ...(cp as Json) }),
  },
  {
    path: "Patient.telecom[].system",
    why: "ContactPoint.system other (TDD, TTY, modem in XTN.3) has no equipment type of its own: written without one, a number reads back as phone",
    readsBack: (system) => (system === "other" ? "phone" : system),
  },
  {
    path: "**.coding[].version",
    why: "CE, the coded type before v2.5, has no coding-system version (CWE.7, CWE.8)",
    when: before("2.5"),
  },
  {
    path: "**.text",
    why: "CE, the coded type before v2.5, has no original text (CWE.9)",
    when: before("2.5"),
    where: isConcept,
  },
  {
    path: "Observation.interpretation[].coding[]",
    why: "OBX-8 is IS (a table 0078 code) before v2.7: the display, version and a coding system of its own are not carried",
    when: before("2.7"),
    readsBack: (c) => ({ system: "http://terminology.hl7.org/CodeSystem/v3-ObservationInterpretation", code: (c as Json).code }),
  },
  {
    path: "Observation.basedOn",
    why: "ADT has no ORC/OBR: the order an OBX was made under is not carried (DFT samples)",
    when: (t) => t.target.startsWith("ADT"),
  },
  {
    path: "Observation.identifier[]",
    why: "an Observation's identifier goes to OBX-21 (from v2.5), which the converter reads back typed FILL (the filler's observation instance identifier)",
    when: (t) => !before("2.5")(t),
    readsBack: (id) => ({ ...(id as Json), type: (id as Json).type ?? { coding: [{ system: "http://terminology.hl7.org/CodeSystem/v2-0203", code: "FILL" }] } }),
  },
  {
    path: "**.contentType",
    why: "OBX-5 ED carries a MIME type and subtype, not their parameters: text/plain; charset=utf-8 comes back text/plain",
    readsBack: (ct) => String(ct).replace(/\s*;.*$/, ""),
  },
  {
    path: "DocumentReference.relatesTo",
    why: "the converter reads TXA-13 (parent document) as relatesTo only in T05/T06 (appends) and T09-T11 (replaces): an addendum or replacement goes out as T02 here",
    when: (t) => t.source !== t.target && t.target.startsWith("MDM"),
  },
];

/** Resource types the samples' Bundles hold that no message built here carries, and why. */
export const NOT_CARRIED_TYPES: Record<string, string> = {
  RelatedPerson: "NK1 (and an IN1 subscriber) are not written",
  Procedure: "PR1 is not written",
  Coverage: "IN1 is not written",
  ChargeItem: "DFT (FT1) is not one of the message types built",
  Provenance: "made anew from each message (MSH-10, MSH-7)",
};

// ------------------------------------------------------------------ what a message shapes differently

/** A difference that spans resources, applied to the Bundles (copies) before they are compared. */
export interface Reshaping {
  why: string;
  when: (trip: TripInfo) => boolean;
  apply(expected: Bundle, actual: Bundle): void;
}

const resources = (b: Bundle, type: string) => (b.entry ?? []).map((e) => e.resource as Json).filter((r) => r?.resourceType === type);
const fullUrlOf = (b: Bundle, r: Json) => b.entry?.find((e) => e.resource === r)?.fullUrl;

/** Observations no DiagnosticReport of the Bundle lists as a result. */
function withoutReport(b: Bundle): Json[] {
  const listed = new Set(resources(b, "DiagnosticReport").flatMap((r) => ((r.result ?? []) as Json[]).map((x) => x.reference)));
  return resources(b, "Observation").filter((o) => !listed.has(fullUrlOf(b, o)));
}

const idKeys = (r: Json) => ((r.identifier ?? []) as Json[]).filter((i) => !DERIVED.test(i.system ?? "")).map((i) => `${i.system}|${i.value}`);

export const RESHAPED: Reshaping[] = [
  {
    why: "ORU carries results only under an OBR: Observations that no DiagnosticReport lists go under an OBR of their own, which the converter reads back as a DiagnosticReport. Those reports are not compared; their results are, as Observations",
    when: (t) => t.target === "ORU^R01",
    apply(expected, actual) {
      const loose = new Set(withoutReport(expected).map((o) => JSON.stringify(o.code)));
      if (loose.size === 0) return;
      const known = new Set(resources(expected, "DiagnosticReport").flatMap(idKeys));
      actual.entry = (actual.entry ?? []).filter((e) => {
        const r = e.resource as Json;
        if (r.resourceType !== "DiagnosticReport" || idKeys(r).some((k) => known.has(k))) return true;
        const results = ((r.result ?? []) as Json[]).map((x) => actual.entry?.find((y) => y.fullUrl === x.reference)?.resource as Json);
        return !results.every((o) => o && loose.has(JSON.stringify(o.code)));
      });
    },
  },
  {
    why: "a request without a code that results are based on (an ORC without an OBR, ORU-R01-01) goes out with its result's code as OBR-4, which the converter reads back as the request's code",
    when: (t) => t.target === "ORU^R01",
    apply(expected) {
      const loose = withoutReport(expected);
      for (const sr of resources(expected, "ServiceRequest")) {
        const url = fullUrlOf(expected, sr);
        const based = loose.find((o) => ((o.basedOn ?? []) as Json[]).some((b) => b.reference === url));
        if (!sr.code && based) sr.code = based.code;
      }
    },
  },
];

/** The two Bundles of a trip as they are compared: copies, reshaped. */
export function reshaped(trip: TripInfo, bundle1: Bundle, bundle2: Bundle): [Bundle, Bundle] {
  const expected = structuredClone(bundle1);
  const actual = structuredClone(bundle2);
  for (const r of RESHAPED) if (r.when(trip)) r.apply(expected, actual);
  return [expected, actual];
}

// ------------------------------------------------------------------ which message each sample goes out as

const BUILT = new Set(["A01", "A03", "A04", "A08", "A40"]);
const ADT_MERGE = new Set(["A18", "A34", "A36", "A39", "A40"]);

/** The message type a converted sample is written back as: its own where the encoder builds it. */
export function targetType(m: Hl7Message, bundle: Bundle): string {
  const t = m.messageType;
  const e = m.triggerEvent;
  if (t === "ADT") return BUILT.has(e) ? `ADT^${e}` : ADT_MERGE.has(e) ? "ADT^A40" : "ADT^A08";
  if (t === "ORU") return "ORU^R01";
  if (t === "ORM") return "ORM^O01";
  if (t === "SIU") return "SIU^S12";
  // a document with content goes as T02; the samples that have none (T01, empty bodies) as the notification T01
  if (t === "MDM") return (bundle.entry ?? []).some((e) => e.resource?.resourceType === "Binary") ? "MDM^T02" : "MDM^T01";
  return "ADT^A08"; // DFT: no encoder for charges; its Patient and Encounter go out as an update
}

/** The resource types each target message carries (and so are compared). */
const CARRIED: Record<string, string[]> = {
  ADT: ["Patient", "Encounter", "Observation", "AllergyIntolerance", "Condition"],
  "ADT^A40": ["Patient"],
  ORU: ["Patient", "Encounter", "Observation", "DiagnosticReport", "ServiceRequest"],
  ORM: ["Patient", "Encounter", "ServiceRequest", "Observation", "Condition", "AllergyIntolerance"],
  SIU: ["Patient", "Encounter", "Appointment", "Observation", "Condition"],
  MDM: ["Patient", "Encounter", "DocumentReference", "ServiceRequest"],
};
const carriedTypes = (target: string) => CARRIED[target] ?? CARRIED[target.slice(0, 3)]!;

// ------------------------------------------------------------------ normalising a Bundle for comparison

const DERIVED = /^urn:hl7v2:(message|key):/;
const ZONE_UTC = /(T\d{2}:\d{2}:\d{2}(?:\.\d+)?)(?:\+00:00|Z)$/;
/** Types a reference is compared by key (they are compared on their own); others are inlined. */
const BY_KEY = new Set(["Patient", "Encounter"]);

function keyOf(r: Json, bundle: Bundle): string {
  const ids = ((r.identifier ?? []) as Json[]).filter((i) => i.value && !DERIVED.test(i.system ?? ""));
  if (ids.length) return `${r.resourceType}:${ids.map((i) => `${i.system}|${i.value}`).sort()[0]}`;
  const same = (bundle.entry ?? []).filter((e) => e.resource?.resourceType === r.resourceType).map((e) => e.resource);
  return `${r.resourceType}#${same.indexOf(r as Resource)}`;
}

function normalise(value: unknown, bundle: Bundle, depth: number): unknown {
  if (typeof value === "string") return value.replace(ZONE_UTC, "$1Z");
  if (Array.isArray(value)) return value.map((v) => normalise(v, bundle, depth));
  if (!value || typeof value !== "object") return value;
  const o = value as Json;
  if (typeof o.reference === "string") {
    const target = bundle.entry?.find((e) => e.fullUrl === o.reference)?.resource as Json | undefined;
    if (!target) return { reference: o.reference };
    if (BY_KEY.has(target.resourceType) || depth > 3) return { ref: keyOf(target, bundle) };
    return { [target.resourceType]: normalise(strip(target), bundle, depth + 1) };
  }
  const out: Json = {};
  for (const [k, v] of Object.entries(o)) {
    if (k === "display" && depth > 0 && typeof v === "string" && Object.hasOwn(o, "reference")) continue;
    if (k === "url" && typeof v === "string" && v.startsWith("urn:uuid:")) {
      const target = bundle.entry?.find((e) => e.fullUrl === v)?.resource;
      out[k] = target ? { [target.resourceType]: normalise(strip(target as Json), bundle, depth + 1) } : v;
      continue;
    }
    out[k] = normalise(v, bundle, depth);
  }
  return out;
}

/** A resource without what the message derives anew: ids, derived identifiers; identifiers sorted. */
function strip(r: Json): Json {
  const { id: _id, ...rest } = r;
  if (Array.isArray(rest.identifier)) {
    const ids = (rest.identifier as Json[]).filter((i) => !DERIVED.test(i.system ?? ""));
    rest.identifier = ids.sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
    if (ids.length === 0) delete rest.identifier;
  }
  return rest;
}

/** A rule's path as a regular expression over element paths ("Patient.telecom[].use"). */
function pathPattern(path: string): RegExp {
  const body = path
    .split("**")
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))
    .join(".*");
  return new RegExp(`(^|\\.)${body}$`);
}

/** Apply the rules to a normalised resource: leave out what is not carried, or put what Bundle 1's value reads back as. */
function applyRules(node: unknown, path: string, rules: NotCarried[], expected: boolean): unknown {
  if (Array.isArray(node)) return node.map((item) => applyRules(item, `${path}[]`, rules, expected));
  if (!node || typeof node !== "object") return node;
  const out: Json = {};
  for (const [k, v] of Object.entries(node as Json)) {
    const here = `${path}.${k}`;
    let value: unknown = v;
    let keep = true;
    for (const rule of rules) {
      if (rule.where && !rule.where(node as Json)) continue;
      const re = pathPattern(rule.path);
      if (rule.readsBack && Array.isArray(value) && re.test(`${here}[]`)) {
        if (expected) value = value.map(rule.readsBack);
      } else if (re.test(here)) {
        if (!rule.readsBack) keep = false;
        else if (expected) value = rule.readsBack(value);
      }
    }
    if (keep) out[k] = applyRules(value, here, rules, expected);
  }
  return out;
}

/**
 * Every carried resource of a Bundle, normalised and sorted, with the rules applied. Bundle 1
 * is the expected side: there readsBack rules turn a value into what the message brings back.
 */
export function carried(bundle: Bundle, trip: TripInfo, expected: boolean): Record<string, unknown[]> {
  const rules = NOT_CARRIED.filter((r) => !r.when || r.when(trip));
  const out: Record<string, unknown[]> = {};
  for (const type of carriedTypes(trip.target)) {
    const items = (bundle.entry ?? [])
      .filter((e) => e.resource?.resourceType === type)
      .map((e) => applyRules(normalise(strip(e.resource as Json), bundle, 0), type, rules, expected));
    out[type] = items.sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
  }
  return out;
}

// ------------------------------------------------------------------ reading the message back

export const canon = (x: unknown): unknown => {
  if (typeof x === "string") return x.replace(/\r/g, "\n");
  if (!Array.isArray(x)) return x;
  const out = x.map(canon);
  while (out.length && (out.at(-1) === "" || (Array.isArray(out.at(-1)) && (out.at(-1) as unknown[]).length === 0))) out.pop();
  return out;
};

/** The parser's view of a message in python-hl7's shape: fields → repetitions → components → subcomponents. */
export function ourTree(m: Hl7Message): PythonSegment[] {
  const leaves = (v: Hl7Value): unknown => (v.level === 3 ? v.value : v.list().map(leaves));
  return m.segments.map((s) => [s.name, Array.from({ length: s.length }, (_, i) => (s.isHeader && i < 2 ? s.field(i + 1).value : s.field(i + 1).repetitions().map(leaves)))]);
}

/** MSH options repeating the sample's header, so the systems derived from it come out the same. */
export function mshOf(m: Hl7Message) {
  const hd = (v: Hl7Value) => ({ namespace: v.s(1) || undefined, universalId: v.s(2) || undefined, universalIdType: v.s(3) || undefined });
  return {
    sendingApplication: hd(m.sendingApplication),
    sendingFacility: hd(m.sendingFacility),
    receivingApplication: hd(m.receivingApplication),
    receivingFacility: hd(m.receivingFacility),
    version: m.version,
    controlId: `RT${m.controlId}`.slice(0, 20),
    timestamp: "2026-03-16T10:15:00+01:00",
  };
}

