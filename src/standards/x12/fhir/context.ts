// The output of one X12 → FHIR mapping: a transaction Bundle whose entries have
// deterministic urn:uuid fullUrls (UUIDv5 of the interchange, set and entry key) and,
// when the resource has an identifier, a conditional create, so applying the Bundle twice
// creates nothing twice. Parties already in the store are referenced, not created: the
// caller injects a resolver (the FHIR store in a pipeline node, a fake in tests).

import type { Bundle, BundleEntry, Resource } from "../../../platform/fhir-resource";
import { URL_NAMESPACE, uuidV5 } from "../../../platform/name-uuid";

export interface Identifier {
  system: string;
  value: string;
}

/**
 * What tells a resource apart in the store: its identifier, and search parameters that
 * separate resources sharing it (a dependent and the subscriber share a member id: they are
 * told apart by name and birth date). One query serves the resolver and If-None-Exist.
 */
export interface Match {
  identifier?: Identifier;
  /** FHIR search parameters with raw values, or an Identifier for a token parameter. */
  params?: readonly (readonly [string, string | Identifier])[];
}

/** A search value with FHIR's special characters escaped, then URL-encoded. */
const encodeValue = (v: string) => encodeURIComponent(v.replace(/[\\,|$]/g, (c) => `\\${c}`));
const encodeToken = (id: Identifier) => `${encodeValue(id.system)}|${encodeValue(id.value)}`;

/** A match as a FHIR query string (`identifier=system|value&family:exact=...`). */
export function matchQuery(m: Match): string {
  const pairs: (readonly [string, string | Identifier])[] = [...(m.identifier ? [["identifier", m.identifier] as const] : []), ...(m.params ?? [])];
  return pairs.map(([k, v]) => `${k}=${typeof v === "string" ? encodeValue(v) : encodeToken(v)}`).join("&");
}

export interface ReferenceResolver {
  /** "Type/id" of the one stored resource that matches, or undefined when there is none (or more than one). */
  resolve(type: string, match: Match): Promise<string | undefined>;
}

export interface MapOptions {
  resolver?: ReferenceResolver;
  /** Base of identifier systems the mapping makes up (member ids per payer, claim numbers...). Default "urn:x12". */
  systemBase?: string;
}

export interface Ref {
  reference: string;
  display?: string;
}

const asMatch = (m: Match | Identifier | undefined): Match | undefined => (!m ? undefined : "value" in m && "system" in m ? { identifier: m as Identifier } : (m as Match));

export class FhirOutput {
  readonly entries: BundleEntry[] = [];
  readonly base: string;
  private readonly byKey = new Map<string, Ref>();

  constructor(
    /** Unique per transaction set: sender, ISA13, GS06, ST02. */
    private readonly seed: string,
    private readonly options: MapOptions = {},
  ) {
    this.base = options.systemBase ?? "urn:x12";
  }

  /** An identifier system made from the base: system("member-id", "CHP0001") → urn:x12:member-id:CHP0001. */
  system(...parts: string[]): string {
    const tail = parts.map((p) => p.replace(/[^A-Za-z0-9.\-_]/g, "_")).join(":");
    return this.base.startsWith("urn:") ? `${this.base}:${tail}` : `${this.base}/${tail.replaceAll(":", "/")}`;
  }

  /**
   * A reference to the resource with `identifier`: the stored one when the resolver knows it,
   * the entry already made in this Bundle, or a new entry (created if missing).
   */
  async reference(type: string, match: Match | Identifier | undefined, make: () => Resource, key: string): Promise<Ref> {
    const m = asMatch(match);
    const k = m ? `${type}?${matchQuery(m)}` : `${type}#${key}`;
    const known = this.byKey.get(k);
    if (known) return known;
    const stored = m && this.options.resolver ? await this.options.resolver.resolve(type, m) : undefined;
    const ref = stored ? { reference: stored } : this.add(make(), key, m);
    this.byKey.set(k, ref);
    return ref;
  }

  /** A stored resource found by identifier, without creating anything. */
  async find(type: string, match: Match | Identifier): Promise<Ref | undefined> {
    const stored = await this.options.resolver?.resolve(type, asMatch(match)!);
    return stored ? { reference: stored } : undefined;
  }

  /** Adds a resource; POST conditional on its match (its identifier) when it has one. */
  add(resource: Resource, key: string, match?: Match | Identifier): Ref {
    const fullUrl = `urn:uuid:${uuidV5(`${this.seed}|${resource.resourceType}|${key}`, URL_NAMESPACE)}`;
    const request: BundleEntry["request"] = { method: "POST", url: resource.resourceType };
    const m = asMatch(match);
    if (m) request.ifNoneExist = matchQuery(m);
    this.entries.push({ fullUrl, resource, request });
    return { reference: fullUrl };
  }

  bundle(): Bundle {
    return { resourceType: "Bundle", type: "transaction", entry: this.entries };
  }
}
