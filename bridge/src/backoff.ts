// Retry timing for the forwarder: capped exponential backoff with jitter, and Retry-After.

/** Delay before retry number `attempt` (1-based): uniform in [half, full] of base * 2^(attempt-1), capped. */
export function backoffDelay(attempt: number, baseMs: number, maxMs: number, random: () => number = Math.random): number {
  const ceiling = Math.min(maxMs, baseMs * 2 ** Math.min(attempt - 1, 30));
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}

/** Milliseconds a Retry-After header asks for (delta-seconds or HTTP-date), or null when absent or unreadable. */
export function retryAfterMs(header: string | null, now = Date.now()): number | null {
  if (header === null || header.trim() === "") return null;
  const value = header.trim();
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}
