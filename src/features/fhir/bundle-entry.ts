// One entry of a batch or transaction Bundle: its request parsed (method, type, id, conditional
// query), its body checked, its references found and rewritten, and its response entry built.
import { ApiError, badRequest, operationOutcome } from "../../platform/errors";
import { parseBoundedJson } from "../../platform/http/body-depth";
import { parseReference } from "./index-extract";
import type { BundleEntry, Resource, WriteResult } from "./port";

export type Method = "GET" | "HEAD" | "POST" | "PUT" | "PATCH" | "DELETE";
/** FHIR's processing order of a transaction's entries, by method. */
export const ORDER: Record<Method, number> = { DELETE: 0, POST: 1, PUT: 2, PATCH: 2, GET: 3, HEAD: 3 };

export interface ParsedEntry {
  index: number;
  method: Method;
  type: string;
  id?: string;
  /** Query string of a conditional URL (PUT/DELETE/PATCH Type?query) or of a search. */
  query?: string;
  /** Path segments after Type/id (e.g. _history/2). */
  rest: string[];
  entry: BundleEntry;
}

/** An entry of a Bundle whose shape was checked (bundle-shape.ts): its request has a method and a url. */
export function parseEntry(entry: BundleEntry, index: number): ParsedEntry {
  const req = entry.request!;
  const method = req.method.toUpperCase() as Method;
  if (!(method in ORDER)) throw badRequest(`Bundle.entry[${index}].request.method ${req.method} is not supported`);
  // Absolute URLs (http://host/base/Type/id) are reduced to Type/id.
  const absolute = /^https?:\/\//.test(req.url) ? parseReference(req.url) : undefined;
  const url = absolute ? `${absolute.type}/${absolute.id}` : req.url.replace(/^\//, "");
  const q = url.indexOf("?");
  const path = q < 0 ? url : url.slice(0, q);
  const query = q < 0 ? undefined : url.slice(q + 1);
  const [type = "", id, ...rest] = path.split("/").filter(Boolean);
  return { index, method, type, id, query, rest, entry };
}

const etag = (r: Resource) => `W/"${r.meta?.versionId}"`;

/** The response entry of a write, its resource's fullUrl under `baseUrl`. */
export function writeResponse(result: WriteResult, baseUrl: string): BundleEntry {
  const r = result.resource;
  return {
    fullUrl: `${baseUrl}/${r.resourceType}/${r.id}`,
    resource: r,
    response: {
      status: result.outcome === "created" ? "201 Created" : "200 OK",
      location: `${r.resourceType}/${r.id}/_history/${r.meta?.versionId}`,
      etag: etag(r),
      lastModified: r.meta?.lastUpdated,
    },
  };
}

/** The response entry of an entry that failed: its OperationOutcome. */
export function errorEntry(e: unknown): BundleEntry {
  const err = e instanceof ApiError ? e : new ApiError(500, "INTERNAL", "Internal error while processing the entry");
  return { response: { status: String(err.status), outcome: operationOutcome(err) as unknown as Resource } };
}

/**
 * Replaces every Reference.reference found in `map` (urn:uuid fullUrls, conditional references)
 * with its relative `Type/id`, and every `url` element naming an entry's fullUrl (Attachment.url
 * pointing at a Binary of the transaction, as FHIR asks for uri/url elements) with the absolute
 * URL under `base`: an Attachment.url is fetched as it stands (MHD ITI-68 needs it absolute).
 */
export function rewriteReferences(value: unknown, map: Map<string, string>, base: string): unknown {
  if (Array.isArray(value)) return value.map((v) => rewriteReferences(v, map, base));
  if (!value || typeof value !== "object") return value;
  const rewrite = (k: string, v: unknown): unknown => {
    if (typeof v !== "string" || !map.has(v)) return rewriteReferences(v, map, base);
    if (k === "reference") return map.get(v);
    return k === "url" ? `${base}/${map.get(v)}` : v;
  };
  // fromEntries defines keys as data: a "__proto__" member stays a member (and fails validation).
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, rewrite(k, v)]));
}

/** Every Reference.reference in `value`. */
export function collectReferences(value: unknown, into: Set<string>): void {
  if (Array.isArray(value)) for (const v of value) collectReferences(v, into);
  else if (value && typeof value === "object") {
    for (const [k, v] of Object.entries(value)) {
      if (k === "reference" && typeof v === "string") into.add(v);
      else collectReferences(v, into);
    }
  }
}

/** The response entry of a read, its resource's fullUrl under `baseUrl`. */
export function readEntry(r: Resource, baseUrl: string): BundleEntry {
  return { fullUrl: `${baseUrl}/${r.resourceType}/${r.id}`, resource: r, response: { status: "200 OK", etag: etag(r), lastModified: r.meta?.lastUpdated } };
}

/** The entry's resource, which its method needs, of the type its URL names. */
export function needBody(body: Resource | undefined, p: ParsedEntry): Resource {
  if (!body) throw badRequest(`Bundle.entry[${p.index}] needs a resource for ${p.method}`);
  if (p.type && body.resourceType !== p.type) throw badRequest(`Bundle.entry[${p.index}] holds a ${body.resourceType}, its URL names ${p.type}`);
  return body;
}

/**
 * A PATCH entry's operations, as FHIR allows them in a Bundle: a FHIRPath Patch Parameters resource
 * (MHD ITI-65 marks a replaced DocumentReference superseded so), or a JSON Patch inside a Binary (base64 data).
 */
export function patchBody(body: Resource | undefined): unknown {
  if (body?.resourceType === "Parameters") return body;
  if (body?.resourceType === "Binary" && typeof body.data === "string") {
    try {
      // Opaque to the request body's depth check, so bounded here.
      return parseBoundedJson(new TextDecoder().decode(Uint8Array.from(atob(body.data), (c) => c.charCodeAt(0))), "The PATCH entry's JSON Patch");
    } catch (e) {
      if (e instanceof ApiError) throw e;
      throw badRequest("The PATCH entry's Binary does not hold a JSON Patch");
    }
  }
  throw badRequest("A PATCH entry needs a FHIRPath Patch Parameters resource or a Binary holding a JSON Patch");
}

/** The condition an entry may create under: POST's If-None-Exist, or a conditional PUT's query. */
export function creatingCondition(p: ParsedEntry): string | undefined {
  if (p.method === "POST") return p.entry.request?.ifNoneExist;
  if (p.method === "PUT" && !p.id) return p.query ?? "";
  return undefined;
}
