// Reading FHIR JSON to write X12: referenced resources come from an injected lookup (a
// Bundle's entries in tests and nodes), and a value the set cannot do without is an
// X12Error naming the FHIR element, never an invalid segment.

import type { Bundle, Resource } from "../../../platform/fhir-resource";
import { X12Error } from "../errors";
import { segment, type Segment } from "../model";
import { GENDER_BACK, SYSTEM } from "./codes";
import { x12Date } from "./values";

export type Json = Record<string, unknown>;
export type Lookup = (reference: string) => Resource | undefined;

/** A lookup over a Bundle's entries, by fullUrl and by Type/id. */
export function bundleLookup(bundle: Bundle | { entry?: { fullUrl?: string; resource?: Resource }[] }): Lookup {
  const map = new Map<string, Resource>();
  for (const e of bundle.entry ?? []) {
    if (!e.resource) continue;
    if (e.fullUrl) map.set(e.fullUrl, e.resource);
    if (e.resource.id) map.set(`${e.resource.resourceType}/${e.resource.id}`, e.resource);
  }
  return (ref) => map.get(ref);
}

export const obj = (v: unknown): Json | undefined => (v && typeof v === "object" && !Array.isArray(v) ? (v as Json) : undefined);
export const arr = (v: unknown): Json[] => (Array.isArray(v) ? (v.filter((x) => obj(x)) as Json[]) : []);
export const str = (v: unknown): string | undefined => (typeof v === "string" && v ? v : undefined);

/** The first value, or an X12Error saying which FHIR element is missing. */
export function need<T>(v: T | undefined, path: string): T {
  if (v === undefined || v === null || v === "") throw new X12Error("BAD_BUILD_INPUT", `${path} is required to write this transaction set`);
  return v;
}

/** The resource a Reference points to. */
export function deref(lookup: Lookup, ref: unknown, path: string): Resource {
  const r = str(obj(ref)?.reference);
  return need(r ? lookup(r) : undefined, `${path} (a resolvable reference)`);
}

/** The value of the first identifier with the system (or a system matching the test). */
export function identifierValue(resource: Json | undefined, system: string | ((s: string) => boolean)): string | undefined {
  const test = typeof system === "string" ? (s: string) => s === system : system;
  return str(arr(resource?.identifier).find((i) => test(str(i.system) ?? ""))?.value);
}

/** The first code of a CodeableConcept, optionally from one system. */
export function code(concept: unknown, system?: string): string | undefined {
  const codings = arr(obj(concept)?.coding);
  return str((system ? codings.find((c) => c.system === system) : codings[0])?.code);
}

/** The member id of a person: the identifier under a member-id system. */
export const memberIdOf = (r: Json | undefined) => identifierValue(r, (s) => s.includes("member-id"));
export const npiOf = (r: Json | undefined) => identifierValue(r, SYSTEM.npi);
export const payerIdOf = (r: Json | undefined) => identifierValue(r, (s) => s.endsWith("payer-id"));

/** NM1 for a resource: a person's name or an organization's. */
export function nm1(entity: string, r: Json, idQualifier: string | undefined, id: string | undefined): Segment {
  if (r.resourceType === "Organization") return segment("NM1", entity, "2", need(str(r.name), `${r.resourceType}.name`), "", "", "", "", id ? idQualifier : undefined, id);
  const name = arr(r.name)[0] ?? {};
  const given = (Array.isArray(name.given) ? name.given : []) as string[];
  return segment("NM1", entity, "1", need(str(name.family), `${r.resourceType}.name.family`), given[0], given[1], undefined, Array.isArray(name.suffix) ? (name.suffix[0] as string) : undefined, id ? idQualifier : undefined, id);
}

/** N3/N4 of a resource's first address, when it has one. */
export function addressSegments(r: Json): Segment[] {
  const a = arr(r.address)[0];
  if (!a) return [];
  const lines = (Array.isArray(a.line) ? a.line : []) as string[];
  return [segment("N3", need(lines[0], `${r.resourceType}.address.line`), lines[1]), segment("N4", need(str(a.city), `${r.resourceType}.address.city`), str(a.state), str(a.postalCode), str(a.country))];
}

/** DMG for a patient with a birth date. */
export function dmg(p: Json): Segment[] {
  const birth = x12Date(str(p.birthDate));
  return birth ? [segment("DMG", "D8", birth, GENDER_BACK[str(p.gender) ?? ""] ?? "U")] : [];
}

/** BHT04/BHT05 from a FHIR date or dateTime. */
export function dateTime(v: string | undefined): [string, string] {
  const d = need(x12Date(v), "created");
  const t = /T(\d{2}):(\d{2})/.exec(v ?? "");
  return [d, t ? `${t[1]}${t[2]}` : "0000"];
}

/** The id a trace identifier's system names (`<base>:trn:<id>`: TRN03, or the 276's receiver), if any. */
export function traceSystemId(identifier: Json | undefined): string | undefined {
  const named = /[:/]trn[:/]([^:/]+)$/.exec(str(identifier?.system) ?? "")?.[1];
  return named && named !== "unknown" && named !== "receiver" ? named : undefined;
}

/**
 * A trace (TRN02, TRN03) from an identifier: the X12 → FHIR mapping names TRN03, the
 * originating company, in the system (`<base>:trn:<TRN03>`); else "1" + the EIN, as TRN03 says.
 */
export function traceOf(identifier: Json | undefined, ein: string | undefined, path: string): [value: string, originator: string] {
  const value = need(str(identifier?.value), path);
  const named = traceSystemId(identifier);
  const originator = named ?? (ein ? `1${ein}` : undefined);
  return [value, need(originator, `${path}.system (urn:x12:trn:<originating company id>) or the provider's EIN`)];
}

/** HL counter: each call answers the next HL01. */
export function hlCounter() {
  let n = 0;
  return (parent: number | undefined, level: string, hasChildren: boolean): [Segment, number] => {
    n++;
    return [segment("HL", n, parent, level, hasChildren ? "1" : "0"), n];
  };
}
