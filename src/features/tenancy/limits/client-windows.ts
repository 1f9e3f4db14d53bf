// Rate-limit windows for requests no organization's bucket counts: public endpoints, unknown
// paths, and requests refused before an API key named an organization (400/401/403 of
// authentication). They are counted per client IP in this isolate's memory, with the same
// epoch-aligned one-minute windows as the OrgGate's, so they cost no Durable Object round
// trip; the limit therefore holds per isolate (one Cloudflare location may run several).
import type { BucketState, ConsumeResult } from "../org-gate";

const WINDOW_MS = 60_000;
/** Clients tracked per window; beyond it the oldest entries go first (a flood of addresses cannot grow memory). */
const MAX_CLIENTS = 10_000;

export class ClientWindows {
  private windowStart = 0;
  private readonly counts = new Map<string, number>();

  constructor(private readonly maxClients = MAX_CLIENTS) {}

  /** Every client's window forgotten, as in a new isolate (the Worker suite's runtime between files). */
  clear(): void {
    this.windowStart = 0;
    this.counts.clear();
  }

  /** Counts one request of `client` unless its window is used up (a refused request counts nothing). */
  consume(client: string, limit: number, nowMs: number): ConsumeResult {
    const windowStart = Math.floor(nowMs / WINDOW_MS) * WINDOW_MS;
    if (windowStart !== this.windowStart) {
      this.windowStart = windowStart;
      this.counts.clear();
    }
    const used = this.counts.get(client) ?? 0;
    const allowed = used < limit;
    if (allowed) {
      this.counts.delete(client);
      this.counts.set(client, used + 1);
      if (this.counts.size > this.maxClients) this.counts.delete(this.counts.keys().next().value as string);
    }
    const reset = (windowStart + WINDOW_MS) / 1000;
    const bucket: BucketState = { name: "client", limit, remaining: Math.max(0, limit - (allowed ? used + 1 : used)), reset };
    return { allowed, buckets: [bucket], retryAfter: allowed ? 0 : Math.max(1, Math.ceil(reset - nowMs / 1000)) };
  }
}
