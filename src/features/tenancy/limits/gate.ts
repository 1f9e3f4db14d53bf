// Access to an organization's OrgGate and the concurrency slots later features use.
import type { BucketRequest, LeaseRequest, SlotResult } from "../org-gate";
import type { Env } from "../../../platform/env";
import { rateLimited } from "../../../platform/errors";
import { orgObject } from "../../../platform/durable-objects/object-names";

export type SlotKind = "executions" | "exports";

/** The org's OrgGate, every call naming the org it is made for (the object checks it). */
export function orgGate(env: Env, orgId: string) {
  const stub = orgObject(env.ORG_GATE, orgId);
  return {
    consume: (requests: BucketRequest[], nowMs?: number) => stub.consume(orgId, requests, nowMs),
    lease: (requests: LeaseRequest[], nowMs?: number) => stub.lease(orgId, requests, nowMs),
    acquireSlot: (kind: string, holder: string, limit: number, leaseMs: number, nowMs?: number) =>
      stub.acquireSlot(orgId, kind, holder, limit, leaseMs, nowMs),
    releaseSlot: (kind: string, holder: string, nowMs?: number) => stub.releaseSlot(orgId, kind, holder, nowMs),
    acquireLeases: (keys: string[], holder: string, leaseMs: number, nowMs?: number) => stub.acquireLeases(orgId, keys, holder, leaseMs, nowMs),
    releaseLeases: (keys: string[], holder: string) => stub.releaseLeases(orgId, keys, holder),
    slotsInUse: (kind: string, nowMs?: number) => stub.slotsInUse(orgId, kind, nowMs),
    usage: (buckets: { name: string; windowSeconds: number }[], kinds: string[], nowMs?: number) => stub.usage(orgId, buckets, kinds, nowMs),
  };
}

/**
 * Takes a concurrency slot or throws 429 with Retry-After. The caller releases
 * it when done; if the caller dies, the lease lapses after `leaseMs`.
 */
export async function acquireSlotOrThrow(
  env: Env,
  orgId: string,
  kind: SlotKind,
  holder: string,
  limit: number,
  leaseMs: number,
): Promise<Extract<SlotResult, { acquired: true }>> {
  const result = await orgGate(env, orgId).acquireSlot(kind, holder, limit, leaseMs);
  if (!result.acquired) {
    throw rateLimited(
      `Concurrency limit reached: ${result.inUse} of ${limit} ${kind} already running for this organization`,
      result.retryAfter,
    );
  }
  return result;
}

export async function releaseSlot(env: Env, orgId: string, kind: SlotKind, holder: string): Promise<boolean> {
  return orgGate(env, orgId).releaseSlot(kind, holder);
}

/**
 * One slot held across several units of work that run one at a time (a message drain's
 * executions): taken at the first `hold`, renewed once half its lease has passed, freed by `release`.
 */
export function heldSlot(env: Env, orgId: string, kind: SlotKind, leaseMs: number, now: () => number = Date.now) {
  const holder = crypto.randomUUID();
  let expiresAt = 0;
  return {
    async hold(limit: number): Promise<void> {
      if (now() < expiresAt - leaseMs / 2) return;
      expiresAt = (await acquireSlotOrThrow(env, orgId, kind, holder, limit, leaseMs)).expiresAt;
    },
    async release(): Promise<void> {
      if (!expiresAt) return;
      expiresAt = 0;
      await releaseSlot(env, orgId, kind, holder);
    },
  };
}
