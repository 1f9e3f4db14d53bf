// Rate-limit shares spent in the isolate: instead of a call to the organization's OrgGate per
// request, an isolate leases a share of a bucket's window (LEASE_SHARE of its limit, at least one
// request) and admits requests from it locally until it is spent, then leases again. The gate
// counts what it granted, so a window never admits more than its limit; what an isolate leaves
// unspent is given back when its lease is older than LEASE_TTL_MS and the isolate leases again,
// or lapses with the window (docs/architecture.md, "Limits"). Limits below 2/LEASE_SHARE get
// shares of one request: those buckets stay exact, one gate call per request.
import type { BucketRequest, BucketState, ConsumeResult, LeaseRequest, LeaseResult } from "../org-gate";

/** Share of a bucket's limit one lease asks for: 40 leases per full window, 2.5 gate calls per 100 requests. */
export const LEASE_SHARE = 1 / 40;
/** A lease older than this is not spent further: its rest goes back to the gate with the next lease. */
export const LEASE_TTL_MS = 10_000;
/** Buckets tracked per isolate (per-key buckets multiply them); beyond it, lapsed windows go first, then the oldest. */
const MAX_LEASES = 10_000;

interface Lease {
  windowStart: number;
  limit: number;
  /** Requests of the share not spent yet. */
  tokens: number;
  /** What the gate had left to grant when it last answered for this bucket. */
  gateRemaining: number;
  reset: number;
  leasedAt: number;
}

/** The gate call: OrgGate.lease for one organization. */
export type LeaseGate = (requests: LeaseRequest[], nowMs: number) => Promise<LeaseResult>;

export const shareOf = (limit: number) => Math.max(1, Math.floor(limit * LEASE_SHARE));

export class LeasedWindows {
  private readonly leases = new Map<string, Lease>();
  /** One gate call in flight per organization: requests arriving meanwhile wait for its share. */
  private readonly inflight = new Map<string, Promise<unknown>>();

  /** Gate calls made so far (benchmarks report them per 100 requests). */
  gateCalls = 0;

  private key = (orgId: string, bucket: string) => `${orgId}\u0000${bucket}`;

  private usable(orgId: string, r: BucketRequest, nowMs: number): Lease | undefined {
    const lease = this.leases.get(this.key(orgId, r.name));
    const windowStart = Math.floor(nowMs / (r.windowSeconds * 1000)) * r.windowSeconds * 1000;
    if (!lease || lease.windowStart !== windowStart || lease.limit !== r.limit) return undefined;
    return lease.tokens > 0 && nowMs - lease.leasedAt < LEASE_TTL_MS ? lease : undefined;
  }

  /**
   * Admits one request against every bucket or against none (a refused request spends nothing),
   * from the isolate's shares where it holds them, from the gate for the rest.
   */
  async consume(orgId: string, requests: BucketRequest[], gate: LeaseGate, nowMs: number = Date.now()): Promise<ConsumeResult> {
    for (;;) {
      const held = requests.map((r) => this.usable(orgId, r, nowMs));
      if (held.every((l) => l !== undefined)) return this.spend(requests, held as Lease[]);
      const pending = this.inflight.get(orgId);
      if (!pending) break;
      await pending.catch(() => undefined);
    }
    return this.leaseAndSpend(orgId, requests, gate, nowMs);
  }

  private async leaseAndSpend(orgId: string, requests: BucketRequest[], gate: LeaseGate, nowMs: number): Promise<ConsumeResult> {
    const missing = requests.filter((r) => !this.usable(orgId, r, nowMs));
    const asks: LeaseRequest[] = missing.map((r) => {
      const stale = this.leases.get(this.key(orgId, r.name));
      const ask: LeaseRequest = { ...r, want: shareOf(r.limit) };
      if (stale && stale.tokens > 0) {
        // The rest of an expired (or re-limited) lease goes back rather than lapse unused.
        ask.returned = { windowStart: stale.windowStart, count: stale.tokens };
        stale.tokens = 0;
      }
      return ask;
    });
    this.gateCalls++;
    if (this.leases.size > MAX_LEASES) this.prune(nowMs);
    const call = gate(asks, nowMs);
    this.inflight.set(orgId, call);
    let result: LeaseResult;
    try {
      result = await call;
    } finally {
      if (this.inflight.get(orgId) === call) this.inflight.delete(orgId);
    }
    missing.forEach((r, i) => {
      const key = this.key(orgId, r.name);
      const state = result.buckets[i]!;
      const prior = this.leases.get(key);
      const sameWindow = prior && prior.windowStart === result.windowStarts[i] && prior.limit === r.limit;
      this.leases.set(key, {
        windowStart: result.windowStarts[i]!,
        limit: r.limit,
        // A share granted to a concurrent caller of this isolate is kept beside this one.
        tokens: (sameWindow ? prior.tokens : 0) + result.granted[i]!,
        gateRemaining: state.remaining,
        reset: state.reset,
        leasedAt: nowMs,
      });
    });
    const leases = requests.map((r) => this.leases.get(this.key(orgId, r.name)));
    if (!result.allowed) {
      // The gate's view of the buckets it refused; the isolate's for those it did not ask about.
      const buckets = requests.map((r, i) => {
        const j = missing.indexOf(r);
        return j >= 0 ? result.buckets[j]! : this.stateOf(r, leases[i]!);
      });
      return { allowed: false, buckets, retryAfter: result.retryAfter };
    }
    // Requests of this isolate may have spent the other buckets' shares while the gate answered.
    if (requests.every((r) => this.usable(orgId, r, nowMs))) return this.spend(requests, leases as Lease[]);
    return this.consume(orgId, requests, gate, nowMs);
  }

  private prune(nowMs: number): void {
    for (const [key, lease] of this.leases) if (lease.reset * 1000 <= nowMs) this.leases.delete(key);
    for (const key of this.leases.keys()) {
      if (this.leases.size <= MAX_LEASES) break;
      this.leases.delete(key);
    }
  }

  private spend(requests: BucketRequest[], leases: Lease[]): ConsumeResult {
    for (const l of leases) l.tokens -= 1;
    return { allowed: true, buckets: requests.map((r, i) => this.stateOf(r, leases[i]!)), retryAfter: 0 };
  }

  /** Remaining as this isolate knows it: what the gate had left at its last answer plus the share still unspent here. */
  private stateOf(r: BucketRequest, l: Lease): BucketState {
    return { name: r.name, limit: r.limit, remaining: Math.max(0, Math.min(r.limit, l.gateRemaining + l.tokens)), reset: l.reset };
  }
}
