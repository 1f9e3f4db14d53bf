// Batch and transaction Bundles, over the interaction dispatcher's public surface only
// (BundleDispatcher): a batch entry, and a transaction's read, runs as the same interaction a
// single request would (batch.ts). A transaction resolves every id first (server ids for POST, conditional
// create/update/delete matches, urn:uuid and conditional references) in one round trip, rewrites
// references, plans each write with the steps a single write takes, then commits them all in one
// D1 batch (atomic); GETs run after, and the response lists results in request order.
import { badRequest, preconditionFailed } from "../../platform/errors";
import { runBatch, runSingle } from "./batch";
import { ORDER, type ParsedEntry, collectReferences, creatingCondition, errorEntry, needBody, parseEntry, patchBody, rewriteReferences, writeResponse } from "./bundle-entry";
import { checkedBundle } from "./bundle-shape";
import { newResourceId } from "./resource-id";
import type { Bundle, BundleEntry, Resource, WriteResult } from "./port";
import type { AuditInput } from "./audit";
import { type ConditionalAttempt, conditionKey } from "./conditional-lock";
import type { Lookup } from "./repository";
import { checkType, writable } from "./resource-rules";
import type { FhirService } from "./service";
import type { StoredVersion } from "./storage/resource-store";
import { type PlannedWrite, conditionalUpdateTarget } from "./write-preconditions";

/** What a Bundle needs of the dispatcher beside its interactions: a transaction's reads and the steps of its writes. */
export interface BundleDispatcher extends FhirService {
  /** What a conditional URL matches, to read in `lookUp` (a malformed one is refused now). */
  matchLookup(type: string, query: string): Lookup;
  /** Every lookup's versions, read in one round trip. */
  lookUp(lookups: Lookup[]): Promise<StoredVersion[][]>;
  /** Current versions, deleted ones included, by (type, id). */
  currents(keys: { type: string; id: string }[]): Promise<StoredVersion[]>;
  /** A conditional create's match, answered as the create it stands for. */
  existing(match: StoredVersion): Promise<WriteResult>;
  planCreate(resource: Resource, id: string): Promise<PlannedWrite>;
  /** `current`: the version it replaces (null: none). */
  planUpdate(resource: Resource & { id: string }, ifMatch: string | undefined, current: StoredVersion | null): Promise<PlannedWrite>;
  /** `operations`: read once If-Match holds. */
  planPatch(current: StoredVersion, operations: () => unknown, ifMatch: string | undefined): Promise<PlannedWrite>;
  /** Undefined when there is nothing to delete. */
  planDeletion(type: string, current: StoredVersion | undefined, ifMatch: string | undefined): Promise<PlannedWrite | undefined>;
  /** Commits the plans and further audits in one atomic batch. */
  commit(plans: PlannedWrite[], audits?: AuditInput[]): Promise<void>;
  /** Runs `attempt` leasing the conditions it creates under (conditional-lock.ts). */
  withConditions<T>(attempt: () => Promise<ConditionalAttempt<T>>, conditions?: string[]): Promise<T>;
}

/** `audit`: a transaction's own AuditEvent, committed with its writes. */
export async function executeBundle(service: BundleDispatcher, body: unknown, audit?: AuditInput): Promise<Bundle> {
  const bundle = checkedBundle(body);
  const entries = bundle.entry ?? [];
  const out =
    bundle.type === "transaction" ? await runTransaction(service, entries, audit) : await runBatch(service, entries);
  return { resourceType: "Bundle", id: crypto.randomUUID(), type: `${bundle.type}-response`, entry: out };
}

async function runTransaction(service: BundleDispatcher, entries: BundleEntry[], audit?: AuditInput): Promise<BundleEntry[]> {
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
async function attemptTransaction(service: BundleDispatcher, parsed: ParsedEntry[], keys: Map<number, string>, audit?: AuditInput): Promise<ConditionalAttempt<BundleEntry[]>> {
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
  const reads: Lookup[] = [];
  const readOf = (lookup: Lookup) => reads.push(lookup) - 1;
  const matchAt = new Map<number, number>();
  const currentAt = new Map<number, number>();
  for (const p of parsed) {
    if (p.method === "GET" || p.method === "HEAD") continue;
    checkType(p.type);
    if (p.method === "POST" || (p.method === "PUT" && !p.id)) writable(needBody(p.entry.resource, p), p.type);
    const query = p.method === "POST" ? p.entry.request?.ifNoneExist : !p.id && (p.method === "PUT" || p.method === "DELETE") ? (p.query ?? "") : undefined;
    if (query !== undefined) matchAt.set(p.index, readOf(service.matchLookup(p.type, query)));
    else if (p.id && p.method !== "POST") currentAt.set(p.index, readOf({ kind: "current", type: p.type, id: p.id }));
  }
  const refs = new Set<string>();
  for (const p of parsed) collectReferences(p.entry.resource, refs);
  const conditionalRefs = [...refs].flatMap((ref) => {
    const m = /^([A-Z][A-Za-z]+)\?(.+)$/.exec(ref);
    return m ? [{ ref, type: m[1]!, at: readOf(service.matchLookup(m[1]!, m[2]!)) }] : [];
  });
  const results = await service.lookUp(reads);
  const versionsAt = (i: number) => results[i] ?? [];
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
  for (const v of await service.currents(unread.map((p) => ({ type: p.type, id: targets.get(p.index)!.id })))) {
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

async function planAndCommit(service: BundleDispatcher, parsed: ParsedEntry[], { targets, refMap, currentOf, audits, responses }: ResolvedTransaction): Promise<BundleEntry[]> {
  // 3. Plan every write in the FHIR processing order, then commit them in one batch.
  const plans: { index: number; plan: PlannedWrite }[] = [];
  const byOrder = [...parsed].sort((a, b) => ORDER[a.method] - ORDER[b.method] || a.index - b.index);
  for (const p of byOrder) {
    const target = targets.get(p.index);
    const ifMatch = p.entry.request?.ifMatch;
    const body = p.entry.resource ? (rewriteReferences(p.entry.resource, refMap, service.baseUrl) as Resource) : undefined;
    if (p.method === "POST") {
      if (target?.existing) responses[p.index] = { ...writeResponse(target.existing, service.baseUrl), response: { ...writeResponse(target.existing, service.baseUrl).response!, status: "200 OK" } };
      else plans.push({ index: p.index, plan: await service.planCreate(needBody(body, p), target!.id) });
    } else if (p.method === "PUT") {
      plans.push({ index: p.index, plan: await service.planUpdate({ ...needBody(body, p), id: target!.id }, ifMatch, currentOf(p)) });
    } else if (p.method === "PATCH") {
      const current = currentOf(p);
      if (!current || current.deleted) throw preconditionFailed(`Bundle.entry[${p.index}]: ${p.type}/${target!.id} does not exist`);
      plans.push({ index: p.index, plan: await service.planPatch(current, () => patchBody(body), ifMatch) });
    } else if (p.method === "DELETE") {
      const plan = await service.planDeletion(p.type, currentOf(p) ?? undefined, ifMatch);
      if (plan) plans.push({ index: p.index, plan });
      responses[p.index] = { response: { status: "204 No Content" } };
    }
  }
  await service.commit(
    plans.map((x) => x.plan),
    audits,
  );
  for (const { index, plan } of plans) {
    if (plan.resource) responses[index] = writeResponse(plan.result, service.baseUrl);
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
