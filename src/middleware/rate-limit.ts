// Counts each authenticated request in the org's OrgGate and sets the
// X-RateLimit-* headers from the most constrained bucket; 429 when exhausted.
import { createMiddleware } from "hono/factory";
import type { BucketState } from "../../durable-objects/org-gate";
import { rateLimited } from "../errors";
import type { AppEnv } from "../http/context";
import { bucketsFor } from "../limits/buckets";
import { orgGate } from "../limits/gate";

function tightest(buckets: BucketState[]): BucketState {
  return buckets.reduce((a, b) => (b.remaining < a.remaining || (b.remaining === a.remaining && b.limit < a.limit) ? b : a));
}

export const rateLimit = createMiddleware<AppEnv>(async (c, next) => {
  const principal = c.get("principal");
  const requests = bucketsFor(c.req.method, c.req.path, principal, c.get("limits"));
  const result = await orgGate(c.env, principal.orgId).consume(requests);
  const shown = result.allowed ? tightest(result.buckets) : tightest(result.buckets.filter((b) => b.remaining === 0));
  c.header("X-RateLimit-Limit", String(shown.limit));
  c.header("X-RateLimit-Remaining", String(shown.remaining));
  c.header("X-RateLimit-Reset", String(shown.reset));
  if (!result.allowed) {
    throw rateLimited(
      `Rate limit of ${shown.limit} requests per minute exceeded (${shown.name.split(":")[0]}); retry after ${result.retryAfter} s`,
      result.retryAfter,
    );
  }
  await next();
});
