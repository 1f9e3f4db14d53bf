// Conditional creates (If-None-Exist, a conditional update that matches nothing) ask "does a
// match exist?" and then write; two racing writers would both see none and both create. A
// writer about to create under a condition therefore holds a lease on that condition (type +
// normalised query, as HAPI keys its conditional-create guard) in the org's OrgGate from
// before the match it commits on until the commit. Writes whose conditions all matched take no
// lease: updating a matched resource is already guarded by the version check, and unrelated
// conditions never wait for each other, so concurrent HL7 feeds creating different patients
// run in parallel.
import type { Env } from "../../platform/env";
import { ApiError } from "../../platform/errors";
import { orgGate } from "../tenancy";

/** Longer than any single plan + commit; a holder that dies frees the condition after this. */
const LEASE_MS = 30_000;
const MAX_WAIT_MS = 20_000;

/** The lease key of a condition: "Patient?identifier=a|1" and "identifier=a|1" are one condition, parameters in any order. */
export async function conditionKey(type: string, query: string): Promise<string> {
  const params = new URLSearchParams(query.startsWith(`${type}?`) ? query.slice(type.length + 1) : query);
  params.sort();
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(`${type}?${params}`));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** One optimistic pass of a conditional write: the conditions it would create under, and how to finish. */
export interface ConditionalAttempt<T> {
  /** Keys (conditionKey) of the conditions that matched nothing and would create. */
  creates: string[];
  /** Commits the pass's plan; called only while every key in `creates` is leased (or when there is none). */
  finish: () => Promise<T>;
}

/**
 * Conditions recently seen matching a resource, per organization (this isolate only): a write
 * expects them to match again and every other condition to create. A wrong guess costs a pass or
 * a needless lease, never correctness: every pass reports the conditions it really creates under.
 */
const MATCHED_MAX = 20_000;
const matched = new Map<string, true>();

function noteMatched(orgId: string, keys: string[]): void {
  for (const k of keys) {
    const key = `${orgId}\n${k}`;
    matched.delete(key);
    matched.set(key, true);
    if (matched.size > MATCHED_MAX) matched.delete(matched.keys().next().value as string);
  }
}

/**
 * Runs `attempt` so that it commits only while holding the lease of every condition it creates
 * under. `conditions` (keys of all the conditions the write evaluates) lets it lease the ones
 * expected to create before the first pass, so a write that creates usually needs one pass, not
 * two. Otherwise, or when the guess missed one, the pass that would create runs again holding
 * its leases, so its match sees every racing writer's commit; it repeats with the union of keys
 * if that pass needs a condition the previous did not (a match was deleted).
 */
export async function withConditionLeases<T>(env: Env, orgId: string, attempt: () => Promise<ConditionalAttempt<T>>, conditions: string[] = []): Promise<T> {
  // In-process tools (the store benchmark) run without Durable Objects, and so without races between isolates.
  if (!env.ORG_GATE) return (await attempt()).finish();
  const done = (value: T) => {
    noteMatched(orgId, conditions);
    return value;
  };
  let keys = [...new Set(conditions.filter((k) => !matched.has(`${orgId}\n${k}`)))];
  if (keys.length === 0) {
    const first = await attempt();
    if (first.creates.length === 0) return done(await first.finish());
    keys = [...new Set(first.creates)];
  }
  for (;;) {
    const held = keys;
    const outcome = await holding<{ done: true; value: T } | { done: false; missing: string[] }>(env, orgId, held, async () => {
      const again = await attempt();
      const missing = again.creates.filter((k) => !held.includes(k));
      return missing.length ? { done: false, missing } : { done: true, value: await again.finish() };
    });
    if (outcome.done) return done(outcome.value);
    keys = [...held, ...outcome.missing];
  }
}

const conditionsBusy = () => new ApiError(503, "CONDITIONAL_WRITE_BUSY", "Too many conditional writes on the same criteria in progress; retry shortly", [], { "Retry-After": "1" });

/**
 * Runs `run` holding the org's leases on `keys` (all or none, waiting for them up to MAX_WAIT_MS,
 * then `busy`). The conditional leases above, and the resources' write leases of updates that
 * lost a race for a version (service.ts, lastWriterWins).
 */
export async function holding<T>(env: Env, orgId: string, keys: string[], run: () => Promise<T>, busy: () => ApiError = conditionsBusy): Promise<T> {
  const gate = orgGate(env, orgId);
  const holder = crypto.randomUUID();
  const deadline = Date.now() + MAX_WAIT_MS;
  for (let delay = 2; ; delay = Math.min(delay * 2, 50)) {
    if ((await gate.acquireLeases(keys, holder, LEASE_MS)).acquired) break;
    if (Date.now() > deadline) throw busy();
    await new Promise((r) => setTimeout(r, delay));
  }
  try {
    return await run();
  } finally {
    await gate.releaseLeases(keys, holder);
  }
}
