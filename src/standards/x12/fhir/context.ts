// The output of one X12 → FHIR mapping: a transaction Bundle whose entries have
// deterministic urn:uuid fullUrls (UUIDv5 of the interchange, set and entry key) and,
// when the resource has an identifier, a conditional create, so applying the Bundle twice
// creates nothing twice. Parties already in the store are referenced, not created: the
// caller injects a resolver (the FHIR store in a pipeline node, a fake in tests).

import type { Bundle, BundleEntry, Resource } from "../../../features/fhir/port";
import { URL_NAMESPACE, uuidV5 } from "../../hl7v2/uuid";

export interface Identifier {
  system: string;
  value: string;
}

export interface ReferenceResolver {
  /** "Type/id" of a stored resource with this identifier, or undefined when there is none. */
  resolve(type: string, identifier: Identifier): Promise<string | undefined>;
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
  async reference(type: string, identifier: Identifier | undefined, make: () => Resource, key: string): Promise<Ref> {
    const k = identifier ? `${type}|${identifier.system}|${identifier.value}` : `${type}#${key}`;
    const known = this.byKey.get(k);
    if (known) return known;
    const stored = identifier && this.options.resolver ? await this.options.resolver.resolve(type, identifier) : undefined;
    const ref = stored ? { reference: stored } : this.add(make(), key, identifier);
    this.byKey.set(k, ref);
    return ref;
  }

  /** A stored resource found by identifier, without creating anything. */
  async find(type: string, identifier: Identifier): Promise<Ref | undefined> {
    const stored = await this.options.resolver?.resolve(type, identifier);
    return stored ? { reference: stored } : undefined;
  }

  /** Adds a resource; POST conditional on its identifier when it has one. */
  add(resource: Resource, key: string, identifier?: Identifier): Ref {
    const fullUrl = `urn:uuid:${uuidV5(`${this.seed}|${resource.resourceType}|${key}`, URL_NAMESPACE)}`;
    const request: BundleEntry["request"] = { method: "POST", url: resource.resourceType };
    if (identifier) request.ifNoneExist = `identifier=${encodeURIComponent(identifier.system)}|${encodeURIComponent(identifier.value)}`;
    this.entries.push({ fullUrl, resource, request });
    return { reference: fullUrl };
  }

  bundle(): Bundle {
    return { resourceType: "Bundle", type: "transaction", entry: this.entries };
  }
}
