// HL7 v2 data types → FHIR data types, after the IG's datatypes/*.csv maps.
// Each reader takes a value whose parts are the data type's components: a field
// repetition, or a component whose subcomponents are the components of a nested
// type (CX.4 HD, XCN.9 HD...). Readers return undefined when nothing is valued.

import { toFhirDate, toFhirDateTime } from "../datetime";
import type { Hl7Value } from "../message";
import type { ConversionContext, Identifier } from "./context";
import {
  ABSOLUTE_URI,
  ADDRESS_TYPE,
  ADDRESS_USE,
  knownCodingSystem,
  NAME_USE,
  OID,
  TELECOM_SYSTEM,
  TELECOM_USE,
  UUID,
  V2,
} from "./vocab";

export interface Coding {
  system?: string;
  version?: string;
  code?: string;
  display?: string;
}
export interface CodeableConcept {
  coding?: Coding[];
  text?: string;
}
export interface Period {
  start?: string;
  end?: string;
}

/** Trimmed text of a string, undefined for empty and for the HL7 null "". */
export function clean(s: string | undefined): string | undefined {
  if (s === undefined) return undefined;
  const t = s.trim();
  return t === "" || t === '""' ? undefined : t;
}

/** Trimmed decoded first leaf of part i (see Hl7Value.s). */
export function str(v: Hl7Value, i: number): string | undefined {
  return clean(v.s(i));
}

/** Non-empty repetitions of a field. */
export function reps(v: Hl7Value): Hl7Value[] {
  return v.repetitions().filter((r) => !r.isNull && hasContent(r));
}

/** True when a value holds something besides separators and blanks. */
function hasContent(v: Hl7Value): boolean {
  const d = v.delimiters;
  const raw = v.raw;
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i];
    if (c !== d.component && c !== d.subcomponent && c !== d.repetition && c !== " ") return true;
  }
  return false;
}

/** The whole decoded text of a value with components joined by a space (free text fallbacks). */
export function plainText(v: Hl7Value): string | undefined {
  const parts: string[] = [];
  const walk = (x: Hl7Value) => {
    if (x.level === 3) {
      const t = clean(x.value);
      if (t) parts.push(t);
    } else for (const p of x.list()) walk(p);
  };
  walk(v);
  return parts.length ? parts.join(" ") : undefined;
}

// ---------------------------------------------------------------- identifiers

/**
 * Identifier system for an assigning authority (HD: namespace id, universal id, universal id type):
 *  1. options.authorities[namespace or universal id];
 *  2. universal id that is an OID (or type ISO) → urn:oid:…, a UUID → urn:uuid:…, a URI → itself;
 *  3. well-known namespace ids (SSA → US SSN system, NPI → US NPI system);
 *  4. otherwise {systemBase}:authority:{namespace id or universal id} (URL-encoded).
 * Without any authority the caller uses the sending facility's system (ctx.defaultSystem).
 */
export function authoritySystem(ctx: ConversionContext, namespace?: string, universalId?: string, type?: string): string | undefined {
  const map = ctx.options.authorities;
  if (map) {
    if (namespace && map[namespace]) return map[namespace];
    if (universalId && map[universalId]) return map[universalId];
  }
  if (universalId) {
    const t = type?.toUpperCase();
    if (OID.test(universalId)) return `urn:oid:${universalId}`;
    if (t === "UUID" || t === "GUID" || UUID.test(universalId)) {
      if (UUID.test(universalId)) return `urn:uuid:${universalId.toLowerCase()}`;
    }
    if (ABSOLUTE_URI.test(universalId)) return universalId;
  }
  if (namespace) {
    const n = namespace.toUpperCase();
    if (n === "SSA" || n === "USSSA") return "http://hl7.org/fhir/sid/us-ssn";
    if (n === "NPI" || n === "CMS-NPI") return "http://hl7.org/fhir/sid/us-npi";
    if (OID.test(namespace)) return `urn:oid:${namespace}`;
    if (ABSOLUTE_URI.test(namespace)) return namespace;
    return ctx.uri("authority", namespace);
  }
  if (universalId) return ctx.uri("authority", universalId);
  return undefined;
}

/** System from an HD held in a value's parts (components or subcomponents). */
export function hdSystem(ctx: ConversionContext, hd: Hl7Value): string | undefined {
  return authoritySystem(ctx, str(hd, 1), str(hd, 2), str(hd, 3));
}

function identifierType(code: string | undefined): CodeableConcept | undefined {
  return code ? { coding: [{ system: V2("0203"), code }] } : undefined;
}

/** CX → Identifier. */
export function cxIdentifier(ctx: ConversionContext, cx: Hl7Value): Identifier | undefined {
  const value = str(cx, 1);
  if (!value) return undefined;
  const type = str(cx, 5);
  let system = hdSystem(ctx, cx.part(4));
  if (!system && type === "SS") system = "http://hl7.org/fhir/sid/us-ssn";
  if (!system && type === "NPI") system = "http://hl7.org/fhir/sid/us-npi";
  const period: Period = { start: dateTime(ctx, str(cx, 7)), end: dateTime(ctx, str(cx, 8)) };
  const assigner = str(cx.part(4), 1);
  return {
    system: system ?? ctx.defaultSystem,
    value,
    type: identifierType(type),
    period: validPeriod(period),
    assigner: assigner ? { display: assigner } : undefined,
  };
}

/** EI (entity identifier: id ^ namespace ^ universal id ^ type) → Identifier, optionally typed (PLAC, FILL...). */
export function eiIdentifier(ctx: ConversionContext, ei: Hl7Value, typeCode?: string): Identifier | undefined {
  const value = str(ei, 1);
  if (!value) return undefined;
  const system = authoritySystem(ctx, str(ei, 2), str(ei, 3), str(ei, 4)) ?? ctx.defaultSystem;
  return { system, value, type: identifierType(typeCode) };
}

// ---------------------------------------------------------------- codes

/** One coding triplet (code, text, system) at component offsets of a CWE/CE/CNE. */
function triplet(ctx: ConversionContext, v: Hl7Value, at: number, versionAt: number | undefined, defaultSystem?: string): Coding | undefined {
  const code = str(v, at);
  const display = str(v, at + 1);
  const name = str(v, at + 2);
  if (!code) return undefined;
  let system: string | undefined;
  if (name) system = knownCodingSystem(name, ctx.options.codingSystems) ?? ctx.uri("codesystem", name);
  else system = defaultSystem;
  return { system, version: versionAt ? str(v, versionAt) : undefined, code, display };
}

/** CWE / CE / CNE / CF → CodeableConcept (three codings in v2.7+, CWE.9 original text). */
export function cwe(ctx: ConversionContext, v: Hl7Value, defaultSystem?: string): CodeableConcept | undefined {
  if (v.isEmpty || v.isNull) return undefined;
  const coding = [triplet(ctx, v, 1, 7, defaultSystem), triplet(ctx, v, 4, 8), triplet(ctx, v, 10, 13)].filter((c): c is Coding => !!c);
  const text = str(v, 9) ?? (coding.length === 0 ? str(v, 2) : undefined);
  if (coding.length === 0 && !text) return undefined;
  return { coding, text };
}

/** First coding of a CWE. */
export function cweCoding(ctx: ConversionContext, v: Hl7Value, defaultSystem?: string): Coding | undefined {
  return cwe(ctx, v, defaultSystem)?.coding?.[0];
}

/** A code held in an ID / IS value or in CWE.1 as a CodeableConcept of an HL7 table. */
export function tableConcept(code: string | undefined, table: string, display?: string): CodeableConcept | undefined {
  return code ? { coding: [{ system: V2(table), code, display }] } : undefined;
}

// ---------------------------------------------------------------- dates

export function dateTime(ctx: ConversionContext, raw: string | undefined): string | undefined {
  if (!raw) return undefined;
  const out = toFhirDateTime(raw, ctx.tz);
  if (out === undefined) ctx.warn(`not a valid HL7 date/time: ${JSON.stringify(raw)}`);
  return out;
}

export function date(ctx: ConversionContext, raw: string | undefined): string | undefined {
  if (!raw) return undefined;
  const out = toFhirDate(raw);
  if (out === undefined) ctx.warn(`not a valid HL7 date: ${JSON.stringify(raw)}`);
  return out;
}

/** A period whose end is before its start is dropped (FHIR per-1). */
export function validPeriod(p: Period): Period | undefined {
  if (!p.start && !p.end) return undefined;
  if (p.start && p.end && p.start.length >= 10 && p.end.length >= 10) {
    const a = Date.parse(p.start.length === 10 ? `${p.start}T00:00:00Z` : p.start);
    const b = Date.parse(p.end.length === 10 ? `${p.end}T23:59:59Z` : p.end);
    if (Number.isFinite(a) && Number.isFinite(b) && b < a) return { start: p.start };
  }
  return p;
}

// ---------------------------------------------------------------- names, addresses, telecom

export interface HumanName {
  use?: string;
  text?: string;
  family?: string;
  given?: string[];
  prefix?: string[];
  suffix?: string[];
  period?: Period;
}

function nameOf(fn: Hl7Value, given: (string | undefined)[], suffix: (string | undefined)[], prefix: string | undefined, typeCode: string | undefined, period: Period): HumanName | undefined {
  const family = str(fn, 1);
  const g = given.filter((x): x is string => !!x);
  const s = suffix.filter((x): x is string => !!x);
  if (!family && g.length === 0) return undefined;
  return {
    use: typeCode ? NAME_USE[typeCode] : undefined,
    family,
    given: g,
    prefix: prefix ? [prefix] : undefined,
    suffix: s,
    period: validPeriod(period),
  };
}

/** XPN → HumanName. */
export function xpnName(ctx: ConversionContext, v: Hl7Value): HumanName | undefined {
  const period: Period = str(v, 12) || str(v, 13) ? { start: dateTime(ctx, str(v, 12)), end: dateTime(ctx, str(v, 13)) } : drPeriod(ctx, v.part(10));
  return nameOf(v.part(1), [str(v, 2), str(v, 3)], [str(v, 4), str(v, 6), str(v, 14)], str(v, 5), str(v, 7), period);
}

/** The name inside an XCN (components shifted by one: XCN.2 family ... XCN.10 name type). */
export function xcnName(_ctx: ConversionContext, v: Hl7Value): HumanName | undefined {
  return nameOf(v.part(2), [str(v, 3), str(v, 4)], [str(v, 5), str(v, 7)], str(v, 6), str(v, 10), {});
}

/** DR (range start ^ end) → Period. */
export function drPeriod(ctx: ConversionContext, v: Hl7Value): Period {
  return { start: dateTime(ctx, str(v, 1)), end: dateTime(ctx, str(v, 2)) };
}

export interface Address {
  use?: string;
  type?: string;
  line?: string[];
  city?: string;
  district?: string;
  state?: string;
  postalCode?: string;
  country?: string;
  period?: Period;
}

/** XAD → Address. */
export function xadAddress(ctx: ConversionContext, v: Hl7Value): Address | undefined {
  const sad = v.part(1);
  const line = [str(sad, 1), str(sad, 2), str(sad, 3), str(v, 2), str(v, 19)].filter((x): x is string => !!x);
  const type = str(v, 7);
  const a: Address = {
    use: type ? ADDRESS_USE[type] : undefined,
    type: type ? ADDRESS_TYPE[type] : undefined,
    line,
    city: str(v, 3),
    state: str(v, 4),
    postalCode: str(v, 5),
    country: str(v, 6),
    district: str(v, 9),
    period: validPeriod(str(v, 13) || str(v, 14) ? { start: dateTime(ctx, str(v, 13)), end: dateTime(ctx, str(v, 14)) } : drPeriod(ctx, v.part(12))),
  };
  if (!line.length && !a.city && !a.state && !a.postalCode && !a.country && !a.district) return undefined;
  return a;
}

export interface ContactPoint {
  system?: string;
  value?: string;
  use?: string;
  rank?: number;
  period?: Period;
}

/** XTN → ContactPoint (value from XTN.4 for e-mail, else XTN.12, else XTN.5-8, else XTN.1). */
export function xtnContact(ctx: ConversionContext, v: Hl7Value, defaultUse?: string): ContactPoint | undefined {
  const equipment = str(v, 3);
  const useCode = str(v, 2);
  const email = equipment === "Internet" || equipment === "X.400" || (!equipment && !!str(v, 4) && !str(v, 1) && !str(v, 7));
  let value: string | undefined;
  if (email) value = str(v, 4);
  else {
    value = str(v, 12);
    if (!value && str(v, 7)) {
      const cc = str(v, 5);
      const area = str(v, 6);
      const ext = str(v, 8);
      value = [cc ? `+${cc}` : undefined, area, str(v, 7)].filter(Boolean).join(" ") + (ext ? ` X${ext}` : "");
    }
    value ??= str(v, 1);
  }
  if (!value) return undefined;
  let system = email ? "email" : equipment ? TELECOM_SYSTEM[equipment.toUpperCase()] : undefined;
  system ??= /^[+()\d\s.-]+$/.test(value) ? "phone" : "other";
  let use = useCode ? TELECOM_USE[useCode] : undefined;
  if (!use && equipment === "CP") use = "mobile";
  use ??= useCode ? undefined : defaultUse;
  const rank = Number(str(v, 18));
  return {
    system,
    value,
    use,
    rank: Number.isInteger(rank) && rank > 0 ? rank : undefined,
    period: validPeriod({ start: dateTime(ctx, str(v, 13)), end: dateTime(ctx, str(v, 14)) }),
  };
}

// ---------------------------------------------------------------- numbers

/** FHIR decimal from an NM text, or undefined when it is not a number. */
export function decimal(raw: string | undefined): number | undefined {
  if (!raw) return undefined;
  const t = raw.trim();
  if (!/^[+-]?(\d+(?:\.\d*)?|\.\d+)([eE][+-]?\d+)?$/.test(t)) return undefined;
  const n = Number(t);
  return Number.isFinite(n) ? n : undefined;
}

export interface Quantity {
  value?: number;
  comparator?: string;
  unit?: string;
  system?: string;
  code?: string;
  currency?: string;
}

/** Units (CWE, e.g. OBX-6) applied to a quantity: UCUM codes get the UCUM system. */
export function withUnits(ctx: ConversionContext, q: Quantity, units: Hl7Value | undefined): Quantity {
  if (!units || units.isEmpty) return q;
  const code = str(units, 1);
  const text = str(units, 2);
  const sysName = str(units, 3);
  const system = sysName ? knownCodingSystem(sysName, ctx.options.codingSystems) : undefined;
  q.unit = text ?? code;
  if (code && system) {
    q.system = system;
    q.code = code;
  }
  return q;
}
