// The FHIR input of an encoding: a Bundle (of any type) or one resource. References are
// resolved inside it only (by fullUrl, Type/id, an absolute URL ending in Type/id, or a
// conditional Type?identifier=system|value), never from a store: what is not in the
// input is not in the message. Which resources were written is tracked so that the
// caller can be told what the message type did not carry.

import type { Bundle, Resource } from "../../../platform/fhir-resource";
import { Hl7EncodingError } from "../errors";

export type Json = Record<string, unknown>;

export const obj = (v: unknown): Json | undefined => (v && typeof v === "object" && !Array.isArray(v) ? (v as Json) : undefined);
export const list = (v: unknown): Json[] => (Array.isArray(v) ? v.map(obj).filter((x): x is Json => !!x) : []);
export const text = (v: unknown): string | undefined => (typeof v === "string" && v.trim() !== "" ? v : undefined);
export const strings = (v: unknown): string[] => (Array.isArray(v) ? v.map(text).filter((x): x is string => !!x) : []);

/** Resource types a message only names (inside a data type), never reported as left out. */
const NAMED_ONLY = new Set(["Practitioner", "PractitionerRole", "Organization", "Location", "Device", "Provenance", "MessageHeader", "AuditEvent", "OperationOutcome"]);

function searchUnescape(s: string): string {
  try {
    return decodeURIComponent(s).replace(/\\([\\|$,])/g, "$1");
  } catch {
    return s;
  }
}

/** identifier=system|value (FHIR search escaping and URL encoding undone). */
function parseIdentifierCondition(query: string): { system?: string; value: string } | undefined {
  const m = /^identifier=([^&]*)$/.exec(query);
  if (!m) return undefined;
  const raw = m[1]!;
  const bar = raw.search(/(?<!\\)\|/);
  return bar >= 0 ? { system: searchUnescape(raw.slice(0, bar)), value: searchUnescape(raw.slice(bar + 1)) } : { value: searchUnescape(raw) };
}

export class FhirInput {
  readonly resources: Resource[] = [];
  private readonly byKey = new Map<string, Resource>();
  private readonly used = new Set<Resource>();
  /** The identifier condition each entry is written with (PUT Type?identifier=… or ifNoneExist). */
  private readonly conditions = new Map<Resource, string>();

  constructor(input: unknown) {
    const root = obj(input);
    if (!root || typeof root.resourceType !== "string") {
      throw new Hl7EncodingError("INVALID_INPUT", "The input must be a FHIR resource or a Bundle (an object with a resourceType)");
    }
    if (root.resourceType === "Bundle") {
      for (const e of list((root as Bundle).entry)) {
        const r = obj(e.resource) as Resource | undefined;
        if (!r || typeof r.resourceType !== "string") continue;
        this.resources.push(r);
        const fullUrl = text(e.fullUrl);
        if (fullUrl) this.index(fullUrl, r);
        const request = obj(e.request);
        const url = text(request?.url);
        const condition = url?.includes("?") ? url : text(request?.ifNoneExist) ? `${r.resourceType}?${request!.ifNoneExist}` : undefined;
        if (condition) {
          this.byKey.set(condition, r);
          this.conditions.set(r, condition);
        }
        if (r.id) this.byKey.set(`${r.resourceType}/${r.id}`, r);
      }
    } else {
      const r = root as Resource;
      this.resources.push(r);
      if (r.id) this.byKey.set(`${r.resourceType}/${r.id}`, r);
    }
  }

  private index(fullUrl: string, r: Resource): void {
    this.byKey.set(fullUrl, r);
    const m = /\/([A-Z][A-Za-z]+)\/([A-Za-z0-9\-.]{1,64})(?:\/_history\/[^/]+)?$/.exec(fullUrl);
    if (m) this.byKey.set(`${m[1]}/${m[2]}`, r);
  }

  /** The resource a Reference (or a reference string) points to, if the input holds it. */
  resolve(ref: unknown, type?: string): Resource | undefined {
    const reference = typeof ref === "string" ? ref : text(obj(ref)?.reference);
    let found: Resource | undefined;
    if (reference) {
      found = this.byKey.get(reference);
      if (!found) {
        const m = /([A-Z][A-Za-z]+)\/([A-Za-z0-9\-.]{1,64})(?:\/_history\/[^/]+)?$/.exec(reference);
        if (m) found = this.byKey.get(`${m[1]}/${m[2]}`);
      }
      if (!found) found = this.byCondition(reference);
    } else {
      // a logical reference: { type, identifier }
      const r = obj(ref);
      const id = obj(r?.identifier);
      const t = type ?? text(r?.type);
      if (id && t) found = this.ofType(t).find((x) => list(x.identifier).some((i) => i.value === id.value && (!id.system || i.system === id.system)));
    }
    return found && (!type || found.resourceType === type) ? found : undefined;
  }

  /** Type?identifier=system|value, matched on the resources' identifiers. */
  private byCondition(reference: string): Resource | undefined {
    const m = /^([A-Z][A-Za-z]+)\?(identifier=[^&]*)$/.exec(reference);
    const id = m ? parseIdentifierCondition(m[2]!) : undefined;
    if (!id) return undefined;
    return this.ofType(m![1]!).find((r) => list(r.identifier).some((i) => i.value === id.value && (id.system === undefined || i.system === id.system)));
  }

  /** The identifier a Bundle entry is matched on by its conditional request, if it has one. */
  keyIdentifier(r: Resource): { system?: string; value: string } | undefined {
    const condition = this.conditions.get(r);
    const query = condition?.slice(condition.indexOf("?") + 1);
    return query ? parseIdentifierCondition(query) : undefined;
  }

  ofType(type: string): Resource[] {
    return this.resources.filter((r) => r.resourceType === type);
  }

  /** Record that a resource went into the message. */
  use<T extends Resource | undefined>(r: T): T {
    if (r) this.used.add(r);
    return r;
  }

  /** Resources the message did not carry, as "Type/id" (or "Type") counts for a warning. */
  leftOut(): string[] {
    const counts = new Map<string, number>();
    for (const r of this.resources) {
      if (this.used.has(r) || NAMED_ONLY.has(r.resourceType)) continue;
      counts.set(r.resourceType, (counts.get(r.resourceType) ?? 0) + 1);
    }
    return [...counts].map(([t, n]) => (n > 1 ? `${t} ×${n}` : t));
  }
}
