// Per isolate, for a short while: whether a search's driving filter matched at least a threshold
// of resources (page.ts counts it, up to the threshold, to pick the sort-ordered or walking plan
// over the general one). The count is one D1 round trip reading up to ~1,000 index rows, and a
// statistic, not data: every plan answers the same entries, so an answer a few seconds old only
// picks a plan, and page.ts counts afresh when a remembered "broad" no longer holds (TOO_COSTLY).
// Keyed by the count's SQL and values, which start with the organization: never shared across orgs.

/** How long an answer stands. Densities move with bulk loads and deletes, not from one request to the next. */
export const DENSITY_TTL_MS = 30_000;
/** Entries kept per isolate (the oldest go first); each is a key and a boolean. */
const MAX_ENTRIES = 2_000;

export class DriverDensity {
  private readonly entries = new Map<string, { reaches: boolean; until: number }>();

  constructor(private readonly now: () => number = Date.now) {}

  /** The remembered answer for `key`, if still fresh. */
  get(key: string): boolean | undefined {
    const hit = this.entries.get(key);
    if (!hit) return undefined;
    if (hit.until > this.now()) return hit.reaches;
    this.entries.delete(key);
    return undefined;
  }

  set(key: string, reaches: boolean): void {
    this.entries.delete(key);
    if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(key, { reaches, until: this.now() + DENSITY_TTL_MS });
  }

  forget(key: string): void {
    this.entries.delete(key);
  }
}

/** This isolate's answers. */
export const driverDensity = new DriverDensity();
