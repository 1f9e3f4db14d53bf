// State of one conversion: options, the systems the converter derives, and the
// transaction Bundle being built. Every entry gets a deterministic urn:uuid
// fullUrl (UUIDv5 of the sender, MSH-10 and the entry's key) and a conditional
// request, so that a FHIR server applying the Bundle twice creates nothing twice:
//   "update" → PUT Type?identifier=system|value   (create or update)
//   "create" → POST Type, ifNoneExist: identifier=system|value   (create if missing)
//   "id"     → PUT Type/<uuid>   (resources without identifiers: Provenance, Binary)

import type { Bundle, BundleEntry, Resource } from "../../../platform/fhir-resource";
import { offsetOf } from "../datetime";
import type { Hl7Message } from "../message";
import { URL_NAMESPACE, uuidV5 } from "../../../platform/name-uuid";

export interface ConvertOptions {
  /**
   * Base of the URIs the converter has to make up: systems for assigning authorities
   * that have no URI or OID, local coding systems, identifiers derived from the message.
   * Default "urn:hl7v2". A "urn:" base is joined with ":", any other base with "/".
   */
  systemBase?: string;
  /** Assigning authority (HD.1 namespace id or HD.2 universal id) → identifier system URI. */
  authorities?: Record<string, string>;
  /** Coding system name as written in CWE.3 → code system URI (adds to and overrides the built-in table). */
  codingSystems?: Record<string, string>;
  /** Zone for times written without one, when MSH-7 has none either (default "Z"). Format "+hh:mm" or "Z". */
  defaultTimezone?: string;
  /** Add a MessageHeader entry (default false: a transaction Bundle does not need one). */
  messageHeader?: boolean;
  /**
   * How the Patient is written: "update" = PUT conditional (create or update), "create" = POST
   * with ifNoneExist (create if missing, never overwrite). Default: "update" for ADT, "create" for others.
   */
  patientMode?: "update" | "create";
  /** Provenance.recorded when MSH-7 is missing or invalid (default: the current time). */
  receivedAt?: string;
}

export type EntryMode = "update" | "create" | "id";

export interface Ref {
  reference: string;
  display?: string;
}

export interface Identifier {
  system?: string;
  value?: string;
  type?: unknown;
  use?: string;
  period?: unknown;
  assigner?: unknown;
  extension?: unknown;
}

/** The systemBase option as used: default urn:hl7v2, trailing ":" and "/" removed. */
export function systemBaseOf(systemBase: string | undefined): string {
  return (systemBase ?? "urn:hl7v2").replace(/[/:]+$/, "");
}

/** A URI below a base: systemUri("urn:hl7v2", "authority", "GOOD HOSP") → urn:hl7v2:authority:GOOD%20HOSP. */
export function systemUri(base: string, ...parts: string[]): string {
  const enc = parts.map((p) => encodeURIComponent(p));
  return base.startsWith("urn:") ? `${base}:${enc.join(":")}` : `${base}/${enc.join("/")}`;
}

export class ConversionContext {
  readonly base: string;
  readonly tz: string;
  /** System of identifiers derived from this sender's messages. */
  readonly messageSystem: string;
  /** System for identifiers that carry no assigning authority (the sending facility's). */
  readonly defaultSystem: string;
  readonly controlId: string;
  readonly entries: BundleEntry[] = [];
  readonly warnings: string[] = [];
  private readonly conditions = new Map<string, string>();
  private readonly keys = new Set<string>();

  constructor(
    readonly message: Hl7Message,
    readonly options: ConvertOptions,
  ) {
    this.base = systemBaseOf(options.systemBase);
    this.tz = offsetOf(message.dateTime) ?? options.defaultTimezone ?? "Z";
    const app = message.sendingApplication.s(1) || message.sendingApplication.s(2);
    const fac = message.sendingFacility.s(1) || message.sendingFacility.s(2);
    this.messageSystem = this.uri("message", app || "unknown", fac || "unknown");
    this.defaultSystem = this.uri("authority", fac || app || "unknown");
    this.controlId = message.controlId;
  }

  /** A URI below the base: uri("authority", "GOOD HOSP") → urn:hl7v2:authority:GOOD%20HOSP. */
  uri(...parts: string[]): string {
    return systemUri(this.base, ...parts);
  }

  /** Deterministic fullUrl for a key unique within this message. */
  fullUrl(key: string): string {
    return `urn:uuid:${uuidV5(`${this.messageSystem}|${this.controlId}|${key}`, URL_NAMESPACE)}`;
  }

  /** An identifier derived from the message (for resources with no business identifier). */
  messageIdentifier(key: string): Identifier {
    return { system: this.messageSystem, value: `${this.controlId}/${key}` };
  }

  /** The fullUrl of an entry already added for this condition, if any. */
  existing(type: string, condition: string): string | undefined {
    return this.conditions.get(`${type}?${condition}`);
  }

  /**
   * Add a resource. With a condition already used by another entry of the same type
   * the first entry wins and its fullUrl is returned (a transaction may not hold two
   * entries with the same conditional URL).
   */
  add(resource: Resource, mode: EntryMode, key: string, condition?: string): string {
    const type = resource.resourceType;
    if (condition !== undefined) {
      const known = this.conditions.get(`${type}?${condition}`);
      if (known) return known;
    }
    let k = `${type}|${key}`;
    for (let n = 2; this.keys.has(k); n++) k = `${type}|${key}#${n}`;
    this.keys.add(k);
    const fullUrl = this.fullUrl(k);
    const entry: BundleEntry = { fullUrl, resource };
    if (mode === "id" || condition === undefined) {
      const id = fullUrl.slice("urn:uuid:".length);
      resource.id = id;
      entry.request = { method: "PUT", url: `${type}/${id}` };
    } else if (mode === "update") {
      entry.request = { method: "PUT", url: `${type}?${condition}` };
    } else {
      entry.request = { method: "POST", url: type, ifNoneExist: condition };
    }
    if (condition !== undefined) this.conditions.set(`${type}?${condition}`, fullUrl);
    this.entries.push(entry);
    return fullUrl;
  }

  warn(text: string): void {
    this.warnings.push(text);
  }

  bundle(): Bundle {
    for (const e of this.entries) if (e.resource) e.resource = prune(e.resource) ?? { resourceType: e.resource.resourceType };
    return { resourceType: "Bundle", type: "transaction", entry: this.entries };
  }
}

/** FHIR search escaping (\ | $ ,) then URL encoding, keeping ":" and "/" readable. */
export function searchValue(s: string): string {
  if (/^[A-Za-z0-9\-._~:/]*$/.test(s)) return s;
  return encodeURIComponent(s.replace(/[\\|$,]/g, (m) => `\\${m}`))
    .replace(/%3A/gi, ":")
    .replace(/%2F/gi, "/");
}

/** identifier=system|value */
export function identifierCondition(id: Identifier | undefined): string | undefined {
  if (!id?.value) return undefined;
  return id.system ? `identifier=${searchValue(id.system)}|${searchValue(id.value)}` : `identifier=${searchValue(id.value)}`;
}

/**
 * A copy without undefined, null, blank strings, empty arrays and empty objects
 * (FHIR forbids them), recursively; undefined when nothing is left.
 */
export function prune<T>(value: T): T | undefined {
  if (value === undefined || value === null) return undefined;
  const t = typeof value;
  if (t === "string") return (value as string).trim() === "" ? undefined : value;
  if (t === "number") return Number.isFinite(value) ? value : undefined;
  if (t !== "object") return value;
  if (Array.isArray(value)) {
    const out: unknown[] = [];
    for (const x of value) {
      const v = prune(x);
      if (v !== undefined) out.push(v);
    }
    return out.length === 0 ? undefined : (out as T);
  }
  const out: Record<string, unknown> = {};
  let n = 0;
  for (const k in value as Record<string, unknown>) {
    const v = prune((value as Record<string, unknown>)[k]);
    if (v !== undefined) {
      out[k] = v;
      n++;
    }
  }
  return n === 0 ? undefined : (out as T);
}
