// Shared helpers for the HL7 v2 unit tests: the sample messages in test/fixtures/hl7v2
// (or HL7_FIXTURES), and the structural check every converted Bundle must pass.

import fs from "node:fs";
import path from "node:path";
import type { Bundle, BundleEntry, Resource } from "../../../src/features/fhir/port";

const repoRoot = path.resolve(import.meta.dirname, "../../..");
export const FIXTURES = process.env.HL7_FIXTURES ?? path.resolve(repoRoot, "test/fixtures/hl7v2");

export function fixtureNames(): string[] {
  return fs
    .readdirSync(FIXTURES)
    .filter((f) => f.endsWith(".hl7"))
    .sort();
}

export function fixture(name: string): string {
  return fs.readFileSync(path.join(FIXTURES, name), "utf8");
}

// FHIR R4 primitive regexes (from the specification)
const YEAR = "([0-9]([0-9]([0-9][1-9]|[1-9]0)|[1-9]00)|[1-9]000)";
const ZONE = "(Z|(\\+|-)((0[0-9]|1[0-3]):[0-5][0-9]|14:00))";
const TIME = `([01][0-9]|2[0-3]):[0-5][0-9]:([0-5][0-9]|60)(\\.[0-9]+)?`;
export const FHIR_DATE = new RegExp(`^${YEAR}(-(0[1-9]|1[0-2])(-(0[1-9]|[1-2][0-9]|3[0-1]))?)?$`);
export const FHIR_DATETIME = new RegExp(`^${YEAR}(-(0[1-9]|1[0-2])(-(0[1-9]|[1-2][0-9]|3[0-1])(T${TIME}${ZONE})?)?)?$`);
export const FHIR_INSTANT = new RegExp(`^${YEAR}-(0[1-9]|1[0-2])-(0[1-9]|[1-2][0-9]|3[0-1])T${TIME}${ZONE}$`);
const FHIR_TIME = /^([01][0-9]|2[0-3]):[0-5][0-9]:([0-5][0-9]|60)(\.[0-9]+)?$/;
const CONTACT_SYSTEMS = new Set(["phone", "fax", "email", "pager", "url", "sms", "other"]);
const ABSOLUTE = /^(https?:\/\/\S+|urn:(oid|uuid|ietf|iso|hl7v2):\S+)$/;

const DATE_KEYS = new Set(["birthDate"]);
const INSTANT_KEYS = new Set(["recorded", "issued", "lastUpdated"]);
const DATETIME_KEYS = new Set(["start", "end", "authoredOn", "recordedDate", "enteredDate", "creation", "occurredDateTime"]);

/** Minimal required elements per resource type (R4 cardinality 1..). */
const REQUIRED: Record<string, string[]> = {
  Encounter: ["status", "class"],
  Observation: ["status", "code"],
  DiagnosticReport: ["status", "code"],
  ServiceRequest: ["status", "intent", "subject"],
  Appointment: ["status", "participant"],
  Condition: ["subject"],
  AllergyIntolerance: ["patient"],
  Procedure: ["status", "subject"],
  Coverage: ["status", "beneficiary", "payor"],
  DocumentReference: ["status", "content"],
  ChargeItem: ["status", "code", "subject"],
  Provenance: ["target", "recorded", "agent"],
  RelatedPerson: ["patient"],
  Binary: ["contentType"],
  MessageHeader: ["eventCoding", "source"],
};

/**
 * Structural check of a converted transaction Bundle; returns the problems found
 * (empty = passes). Checks entries, requests, references, empty values, dates,
 * systems, required elements and the Provenance back to the message.
 */
export function checkBundle(bundle: Bundle, controlId?: string): string[] {
  const problems: string[] = [];
  const p = (s: string) => problems.push(s);
  if (bundle.resourceType !== "Bundle") p("not a Bundle");
  if (bundle.type !== "transaction") p(`Bundle.type is ${bundle.type}`);
  const entries: BundleEntry[] = bundle.entry ?? [];
  if (entries.length === 0) p("no entries");
  const fullUrls = new Set<string>();
  const conditional = new Set<string>();
  for (const [i, e] of entries.entries()) {
    const where = `entry[${i}]`;
    if (!e.fullUrl || !/^urn:uuid:[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/.test(e.fullUrl)) p(`${where}.fullUrl ${e.fullUrl}`);
    else if (fullUrls.has(e.fullUrl)) p(`${where}.fullUrl duplicated`);
    else fullUrls.add(e.fullUrl);
    const r = e.resource;
    if (!r?.resourceType) {
      p(`${where} has no resource.resourceType`);
      continue;
    }
    const type = r.resourceType;
    const req = e.request;
    if (!req?.method || !req.url) p(`${where}.request incomplete`);
    else if (req.method === "POST") {
      if (req.url !== type) p(`${where} POST url ${req.url}`);
      if (!req.ifNoneExist) p(`${where} POST without ifNoneExist: a re-send would create it twice`);
    } else if (req.method === "PUT") {
      if (req.url.startsWith(`${type}?`)) {
        if (!/^[A-Za-z]+\?identifier=\S+$/.test(req.url)) p(`${where} conditional url ${req.url}`);
      } else if (req.url !== `${type}/${r.id}`) p(`${where} PUT url ${req.url} for id ${r.id}`);
    } else p(`${where} method ${req.method}`);
    const cond = req?.method === "PUT" && req.url.includes("?") ? req.url : req?.ifNoneExist ? `${type}?${req.ifNoneExist}` : undefined;
    if (cond) {
      if (conditional.has(cond)) p(`${where} condition ${cond} used twice`);
      conditional.add(cond);
    }
    for (const k of REQUIRED[type] ?? []) if (r[k] === undefined) p(`${where} ${type}.${k} missing`);
    const instants = type === "Appointment" ? ["start", "end"] : type === "DocumentReference" ? ["date"] : [];
    for (const k of instants) if (typeof r[k] === "string" && !FHIR_INSTANT.test(r[k] as string)) p(`${where} ${type}.${k} ${r[k]} is not an instant`);
    // app-2/app-3: start and end together; only proposed, cancelled or waitlisted appointments may lack them
    if (type === "Appointment" && !!r.start !== !!r.end) p(`${where} Appointment with only one of start/end`);
    if (type === "Appointment" && !["proposed", "cancelled", "waitlist"].includes(r.status as string) && !r.start) p(`${where} ${r.status} Appointment without start/end`);
  }
  for (const [i, e] of entries.entries()) if (e.resource) walk(e.resource, `entry[${i}].${e.resource.resourceType}`, fullUrls, p);
  const provenance = entries.filter((e) => e.resource?.resourceType === "Provenance");
  if (provenance.length !== 1) p(`${provenance.length} Provenance entries`);
  else {
    const prov = provenance[0]!.resource as Resource & { target: { reference: string }[]; entity?: { what: { identifier?: { value?: string } } }[] };
    const targets = new Set(prov.target.map((t) => t.reference));
    for (const e of entries) if (e !== provenance[0] && e.resource?.resourceType !== "MessageHeader" && !targets.has(e.fullUrl!)) p(`Provenance does not target ${e.resource?.resourceType} ${e.fullUrl}`);
    if (controlId !== undefined && prov.entity?.[0]?.what.identifier?.value !== controlId) p("Provenance.entity does not name the message control id");
  }
  return problems;
}

function walk(v: unknown, at: string, fullUrls: Set<string>, p: (s: string) => void): void {
  if (v === null || v === undefined) {
    p(`${at} is ${v}`);
    return;
  }
  if (typeof v === "string") {
    if (v.trim() === "") p(`${at} is an empty string`);
    return;
  }
  if (typeof v === "number") {
    if (!Number.isFinite(v)) p(`${at} is not finite`);
    return;
  }
  if (typeof v === "boolean") return;
  if (Array.isArray(v)) {
    if (v.length === 0) p(`${at} is an empty array`);
    for (const [i, x] of v.entries()) walk(x, `${at}[${i}]`, fullUrls, p);
    return;
  }
  if (typeof v === "object") {
    const o = v as Record<string, unknown>;
    const keys = Object.keys(o);
    if (keys.length === 0) p(`${at} is an empty object`);
    for (const k of keys) {
      const x = o[k];
      const here = `${at}.${k}`;
      if (typeof x === "string") {
        if (k === "reference") checkReference(x, here, fullUrls, p);
        if (k === "url" && x.startsWith("urn:uuid:") && !fullUrls.has(x)) p(`${here} ${x} is not in the Bundle`);
        if (k === "system" && !/(telecom\[\d+\]|valueContactPoint)$/.test(at) && !ABSOLUTE.test(x)) p(`${here} ${x} is not an absolute URI`);
        if (k === "system" && /(telecom\[\d+\]|valueContactPoint)$/.test(at) && !CONTACT_SYSTEMS.has(x)) p(`${here} ${x} is not a ContactPoint system`);
        if (DATE_KEYS.has(k) && !FHIR_DATE.test(x)) p(`${here} ${x} is not a FHIR date`);
        if (INSTANT_KEYS.has(k) && !FHIR_INSTANT.test(x)) p(`${here} ${x} is not a FHIR instant`);
        if ((DATETIME_KEYS.has(k) || /DateTime$/.test(k)) && !FHIR_DATETIME.test(x)) p(`${here} ${x} is not a FHIR dateTime`);
        if (k === "valueTime" && !FHIR_TIME.test(x)) p(`${here} ${x} is not a FHIR time`);
      }
      walk(x, here, fullUrls, p);
    }
  }
}

function checkReference(ref: string, at: string, fullUrls: Set<string>, p: (s: string) => void): void {
  if (ref.startsWith("urn:uuid:")) {
    if (!fullUrls.has(ref)) p(`${at} ${ref} points outside the Bundle`);
    return;
  }
  if (/^[A-Z][A-Za-z]+\/[A-Za-z0-9\-.]{1,64}$/.test(ref)) return; // relative
  if (/^[A-Z][A-Za-z]+\?\S+$/.test(ref)) return; // conditional
  if (/^https?:\/\/\S+$/.test(ref)) return; // absolute
  p(`${at} ${ref} is not a valid reference`);
}

/** Entries of a Bundle with a resource type. */
export function entriesOf(bundle: Bundle, type: string): BundleEntry[] {
  return (bundle.entry ?? []).filter((e) => e.resource?.resourceType === type);
}

// biome-ignore lint/suspicious/noExplicitAny: test helper for reading converted JSON
export type Json = any;

export function resourcesOf(bundle: Bundle, type: string): Json[] {
  return entriesOf(bundle, type).map((e) => e.resource);
}

/** Resolve a urn:uuid reference to the resource in the Bundle. */
export function resolve(bundle: Bundle, ref: { reference?: string } | undefined): Json {
  return bundle.entry?.find((e) => e.fullUrl === ref?.reference)?.resource;
}
