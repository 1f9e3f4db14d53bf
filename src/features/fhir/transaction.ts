// Batch and transaction Bundles. A transaction resolves every id first (server ids for POST,
// conditional create/update/delete matches, urn:uuid and conditional references), rewrites
// references, then commits all writes in one D1 batch (atomic); GETs run after, and the response
// lists results in request order. A batch runs each entry on its own and reports each outcome.
import { ApiError, badRequest, operationOutcome, preconditionFailed } from "../../platform/errors";
import { parseReference } from "./index-extract";
import { parseBoundedJson } from "../../platform/http/body-depth";
import { checkedBundle } from "./bundle-shape";
import { applyPatch } from "./patch";
import { newResourceId } from "./resource-id";
import type { Bundle, BundleEntry, Resource, WriteResult } from "./port";
import type { AuditInput } from "./audit";
import { type ConditionalAttempt, conditionKey } from "./conditional-lock";
import type { FhirService } from "./service";
import { type PlannedWrite, checkIfMatch, conditionalUpdateTarget, underIfMatch } from "./write-preconditions";
import { type Row, type StoredVersion, toVersion } from "./storage/resource-store";

type Method = "GET" | "HEAD" | "POST" | "PUT" | "PATCH" | "DELETE";
const ORDER: Record<Method, number> = { DELETE: 0, POST: 1, PUT: 2, PATCH: 2, GET: 3, HEAD: 3 };

interface ParsedEntry {
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
function parseEntry(entry: BundleEntry, index: number): ParsedEntry {
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

function writeResponse(result: WriteResult, service: FhirService): BundleEntry {
  const r = result.resource;
  return {
    fullUrl: `${service.baseUrl}/${r.resourceType}/${r.id}`,
    resource: r,
    response: {
      status: result.outcome === "created" ? "201 Created" : "200 OK",
      location: `${r.resourceType}/${r.id}/_history/${r.meta?.versionId}`,
      etag: etag(r),
      lastModified: r.meta?.lastUpdated,
    },
  };
}

function errorEntry(e: unknown): BundleEntry {
  const err = e instanceof ApiError ? e : new ApiError(500, "INTERNAL", "Internal error while processing the entry");
  return { response: { status: String(err.status), outcome: operationOutcome(err) as unknown as Resource } };
}

/**
 * Replaces every Reference.reference found in `map` (urn:uuid fullUrls, conditional references)
 * with its relative `Type/id`, and every `url` element naming an entry's fullUrl (Attachment.url
 * pointing at a Binary of the transaction, as FHIR asks for uri/url elements) with the absolute
 * URL under `base`: an Attachment.url is fetched as it stands (MHD ITI-68 needs it absolute).
 */
function rewriteReferences(value: unknown, map: Map<string, string>, base: string): unknown {
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

function collectReferences(value: unknown, into: Set<string>): void {
  if (Array.isArray(value)) for (const v of value) collectReferences(v, into);
  else if (value && typeof value === "object") {
    for (const [k, v] of Object.entries(value)) {
      if (k === "reference" && typeof v === "string") into.add(v);
      else collectReferences(v, into);
    }
  }
}

/** `audit`: a transaction's own AuditEvent, committed with its writes. */
export async function executeBundle(service: FhirService, body: unknown, audit?: AuditInput): Promise<Bundle> {
  const bundle = checkedBundle(body);
  const entries = bundle.entry ?? [];
  const out =
    bundle.type === "transaction" ? await runTransaction(service, entries, audit) : await runBatch(service, entries);
  return { resourceType: "Bundle", id: crypto.randomUUID(), type: `${bundle.type}-response`, entry: out };
}

async function runBatch(service: FhirService, entries: BundleEntry[]): Promise<BundleEntry[]> {
  const out: BundleEntry[] = [];
  for (const [i, entry] of entries.entries()) {
    try {
      const p = parseEntry(entry, i);
      out.push(await runSingle(service, p));
    } catch (e) {
      out.push(errorEntry(e));
    }
  }
  return out;
}

/** One entry as its own interaction (batch entries and the reads of a transaction). */
async function runSingle(service: FhirService, p: ParsedEntry): Promise<BundleEntry> {
  const body = p.entry.resource;
  const ifMatch = p.entry.request?.ifMatch;
  switch (p.method) {
    case "GET":
    case "HEAD": {
      if (p.id && p.rest[0] === "_history" && p.rest[1]) return readEntry(service, await service.vread(p.type, p.id, p.rest[1]));
      if (p.id && p.rest[0] === "_history") return { resource: await service.history({ type: p.type, id: p.id }, p.query), response: { status: "200 OK" } };
      if (p.id) return readEntry(service, await service.read(p.type, p.id));
      return { resource: await service.search(p.type || undefined, p.query ?? ""), response: { status: "200 OK" } };
    }
    case "POST":
      return writeResponse(await service.create(needBody(body, p), { ifNoneExist: p.entry.request?.ifNoneExist }), service);
    case "PUT":
      if (p.query !== undefined && !p.id) return writeResponse(await service.conditionalUpdate(p.query, needBody(body, p), { ifMatch }), service);
      if (!p.id) throw badRequest(`PUT needs Type/id or a conditional URL (entry ${p.index})`);
      return writeResponse(await service.update({ ...needBody(body, p), id: p.id }, { ifMatch }), service);
    case "PATCH":
      if (!p.id) throw badRequest(`PATCH needs Type/id (entry ${p.index})`);
      return writeResponse(await service.patch(p.type, p.id, patchBody(body), { ifMatch }), service);
    case "DELETE":
      if (p.id) await service.delete(p.type, p.id, { ifMatch });
      else await service.conditionalDelete(p.type, p.query ?? "");
      return { response: { status: "204 No Content" } };
  }
}

function readEntry(service: FhirService, r: Resource): BundleEntry {
  return { fullUrl: `${service.baseUrl}/${r.resourceType}/${r.id}`, resource: r, response: { status: "200 OK", etag: etag(r), lastModified: r.meta?.lastUpdated } };
}

function needBody(body: Resource | undefined, p: ParsedEntry): Resource {
  if (!body) throw badRequest(`Bundle.entry[${p.index}] needs a resource for ${p.method}`);
  if (p.type && body.resourceType !== p.type) throw badRequest(`Bundle.entry[${p.index}] holds a ${body.resourceType}, its URL names ${p.type}`);
  return body;
}

/**
 * A PATCH entry's operations, as FHIR allows them in a Bundle: a FHIRPath Patch Parameters resource
 * (MHD ITI-65 marks a replaced DocumentReference superseded so), or a JSON Patch inside a Binary (base64 data).
 */
function patchBody(body: Resource | undefined): unknown {
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
function creatingCondition(p: ParsedEntry): string | undefined {
  if (p.method === "POST") return p.entry.request?.ifNoneExist;
  if (p.method === "PUT" && !p.id) return p.query ?? "";
  return undefined;
}

async function runTransaction(service: FhirService, entries: BundleEntry[], audit?: AuditInput): Promise<BundleEntry[]> {
  const parsed = entries.map(parseEntry);
  // Each entry's condition key, once: the leases are named by them before the first pass.
  const keys = new Map<number, string>();
  for (const p of parsed) {
    const condition = creatingCondition(p);
    if (condition !== undefined) keys.set(p.index, await conditionKey(p.type, condition));
  }
  return service.withConditions(() => attemptTransaction(service, parsed, keys, audit), [...keys.values()]);
}

/**
 * One pass over a transaction: resolves every id and reference against the current state and
 * names the conditions it would create under; `finish` plans and commits the writes, then reads.
 */
async function attemptTransaction(service: FhirService, parsed: ParsedEntry[], keys: Map<number, string>, audit?: AuditInput): Promise<ConditionalAttempt<BundleEntry[]>> {
  const audits: AuditInput[] = audit ? [audit] : [];
  const responses: BundleEntry[] = new Array(parsed.length);
  const refMap = new Map<string, string>();
  const targets = new Map<number, { id: string; existing?: WriteResult }>();
  const touched = new Set<string>();
  const claim = (key: string, index: number) => {
    if (touched.has(key)) throw badRequest(`Bundle.entry[${index}] acts on ${key}, which another entry of the transaction also changes`);
    touched.add(key);
  };

  // 1. Every read the resolution needs goes in one round trip against the state before the
  // transaction: conditional matches (with their current versions), conditional references,
  // and the current versions of the resources named by id.
  const reads: D1PreparedStatement[] = [];
  const readOf = (statement: D1PreparedStatement) => reads.push(statement) - 1;
  const matchAt = new Map<number, number>();
  const currentAt = new Map<number, number>();
  for (const p of parsed) {
    if (p.method === "GET" || p.method === "HEAD") continue;
    service.checkType(p.type);
    if (p.method === "POST" || (p.method === "PUT" && !p.id)) service.writable(needBody(p.entry.resource, p), p.type);
    const query = p.method === "POST" ? p.entry.request?.ifNoneExist : !p.id && (p.method === "PUT" || p.method === "DELETE") ? (p.query ?? "") : undefined;
    if (query !== undefined) matchAt.set(p.index, readOf(service.matchStatement(p.type, query)));
    else if (p.id && p.method !== "POST") currentAt.set(p.index, readOf(service.store.currentStatement(p.type, p.id)));
  }
  const refs = new Set<string>();
  for (const p of parsed) collectReferences(p.entry.resource, refs);
  const conditionalRefs = [...refs].flatMap((ref) => {
    const m = /^([A-Z][A-Za-z]+)\?(.+)$/.exec(ref);
    return m ? [{ ref, type: m[1]!, at: readOf(service.matchStatement(m[1]!, m[2]!)) }] : [];
  });
  const results = reads.length ? await service.db.batch<Row>(reads) : [];
  const versionsAt = (i: number) => (results[i]?.results ?? []).map(toVersion);
  const matches = new Map([...matchAt].map(([index, at]) => [index, versionsAt(at)]));
  const currents = new Map<number, StoredVersion | null>([...currentAt].map(([index, at]) => [index, versionsAt(at)[0] ?? null]));

  // Ids: server ids, matches; claims are checked in entry order.
  for (const p of parsed) {
    if (p.method === "GET" || p.method === "HEAD") continue;
    const fullUrl = p.entry.fullUrl;
    const found = matches.get(p.index);
    if (p.method === "POST") {
      let target: { id: string; existing?: WriteResult } = { id: newResourceId() };
      if (found && found.length > 1) throw preconditionFailed(`Bundle.entry[${p.index}]: If-None-Exist matched ${found.length} resources`);
      const match = found?.[0];
      if (match) {
        target = { id: match.id, existing: await service.existing(match) };
        audits.push({ interaction: "create", what: `${p.type}/${match.id}`, outcome: "0", outcomeDesc: "existing" });
      }
      targets.set(p.index, target);
      if (fullUrl) refMap.set(fullUrl, `${p.type}/${target.id}`);
      if (!target.existing) claim(`${p.type}/${target.id}`, p.index);
    } else if (p.method === "PUT" && !p.id) {
      const body = needBody(p.entry.resource, p);
      const id = conditionalUpdateTarget(body, (found ?? []).map((v) => v.id));
      // No match but the body names its id: that resource's current version is read below.
      if (found?.[0]) currents.set(p.index, found[0]);
      targets.set(p.index, { id });
      if (fullUrl) refMap.set(fullUrl, `${p.type}/${id}`);
      claim(`${p.type}/${id}`, p.index);
    } else if (p.method === "DELETE" && !p.id) {
      if (found && found.length > 1) throw preconditionFailed(`Bundle.entry[${p.index}]: the conditional delete matched ${found.length} resources`);
      if (found?.[0]) {
        targets.set(p.index, { id: found[0].id });
        currents.set(p.index, found[0]);
        claim(`${p.type}/${found[0].id}`, p.index);
      }
    } else if (p.id) {
      targets.set(p.index, { id: p.id });
      if (fullUrl) refMap.set(fullUrl, `${p.type}/${p.id}`);
      claim(`${p.type}/${p.id}`, p.index);
    }
  }
  // Only a body naming its id can meet a current version; otherwise the target is a new server id.
  const unread = parsed.filter((p) => p.method === "PUT" && !p.id && !currents.has(p.index) && p.entry.resource?.id !== undefined);
  for (const v of await service.store.currents(unread.map((p) => ({ type: p.type, id: targets.get(p.index)!.id })))) {
    const p = unread.find((u) => u.type === v.resourceType && targets.get(u.index)!.id === v.id);
    if (p) currents.set(p.index, v);
  }
  const currentOf = (p: ParsedEntry) => currents.get(p.index) ?? null;

  // 2. Conditional references (Patient?identifier=...) must select exactly one resource.
  for (const { ref, type, at } of conditionalRefs) {
    if (refMap.has(ref)) continue;
    const found = versionsAt(at);
    if (found.length !== 1) throw preconditionFailed(`The conditional reference ${ref} matched ${found.length} resources (needs exactly one)`);
    refMap.set(ref, `${type}/${found[0]!.id}`);
  }
  for (const ref of refs) {
    if (ref.startsWith("urn:uuid:") && !refMap.has(ref)) throw badRequest(`The reference ${ref} names no entry of the transaction`);
  }

  // Conditions that matched nothing: this pass creates under them.
  const creates = parsed.flatMap((p) => {
    const found = matches.get(p.index);
    if (!found || found.length > 0 || p.method === "DELETE") return [];
    return [keys.get(p.index)!];
  });
  return { creates, finish: () => planAndCommit(service, parsed, { targets, refMap, currentOf, audits, responses }) };
}

interface ResolvedTransaction {
  targets: Map<number, { id: string; existing?: WriteResult }>;
  refMap: Map<string, string>;
  currentOf: (p: ParsedEntry) => StoredVersion | null;
  audits: AuditInput[];
  responses: BundleEntry[];
}

async function planAndCommit(service: FhirService, parsed: ParsedEntry[], { targets, refMap, currentOf, audits, responses }: ResolvedTransaction): Promise<BundleEntry[]> {
  // 3. Plan every write in the FHIR processing order, then commit them in one batch.
  const plans: { index: number; plan: PlannedWrite }[] = [];
  const byOrder = [...parsed].sort((a, b) => ORDER[a.method] - ORDER[b.method] || a.index - b.index);
  for (const p of byOrder) {
    const target = targets.get(p.index);
    const ifMatch = p.entry.request?.ifMatch;
    const body = p.entry.resource ? (rewriteReferences(p.entry.resource, refMap, service.baseUrl) as Resource) : undefined;
    if (p.method === "POST") {
      if (target?.existing) responses[p.index] = { ...writeResponse(target.existing, service), response: { ...writeResponse(target.existing, service).response!, status: "200 OK" } };
      else plans.push({ index: p.index, plan: await service.planWrite(needBody(body, p), target!.id, undefined, "create") });
    } else if (p.method === "PUT") {
      plans.push({ index: p.index, plan: await service.planUpdate({ ...needBody(body, p), id: target!.id }, { ifMatch }, "update", currentOf(p)) });
    } else if (p.method === "PATCH") {
      const current = currentOf(p);
      if (!current || current.deleted) throw preconditionFailed(`Bundle.entry[${p.index}]: ${p.type}/${target!.id} does not exist`);
      checkIfMatch(ifMatch, current);
      const patched = applyPatch(await service.hydrate(current.content), patchBody(body));
      plans.push({ index: p.index, plan: underIfMatch(await service.planWrite(patched, target!.id, current, "patch"), ifMatch) });
    } else if (p.method === "DELETE") {
      service.deletable(p.type);
      const current = currentOf(p);
      checkIfMatch(ifMatch, current ?? undefined);
      if (current && !current.deleted) plans.push({ index: p.index, plan: underIfMatch(await service.planDelete(p.type, target!.id, current), ifMatch) });
      responses[p.index] = { response: { status: "204 No Content" } };
    }
  }
  await service.commit(
    plans.map((x) => x.plan),
    audits,
  );
  for (const { index, plan } of plans) {
    if (plan.resource) responses[index] = writeResponse(plan.result, service);
  }

  // 4. Reads see the committed state.
  for (const p of parsed) {
    if (p.method === "GET" || p.method === "HEAD") {
      try {
        responses[p.index] = await runSingle(service, p);
      } catch (e) {
        responses[p.index] = errorEntry(e);
      }
    }
  }
  return responses;
}
