// Rate limits and the X-RateLimit-* headers every response carries (spec section 8).
// Authenticated requests count in their organization's buckets (the org bucket and per-user
// buckets), from shares of the window this isolate leases from the org's OrgGate
// (limits/leases.ts: most requests decide without a gate call); a valid credential refused for the
// organization the request names counts in its own organization's bucket; every other request
// (public endpoints, unknown paths, requests refused by authentication) counts in its client IP's
// bucket (limits/client-windows.ts).
import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import type { BucketRequest, BucketState } from "../org-gate";
import type { Limits } from "../limits/config";
import { rateLimited } from "../../../platform/errors";
import type { HttpEnv } from "../../../platform/http/http-env";
import { errorResponse } from "../../../platform/http/error-handler";
import { bucketsFor, orgBucket } from "../limits/buckets";
import { ClientWindows } from "../limits/client-windows";
import { publicPerMinute, webhookPerMinute } from "../limits/config";
import { orgGate } from "../limits/gate";
import { LeasedWindows } from "../limits/leases";

declare module "hono" {
  interface ContextVariableMap {
    /** The rate-limit bucket that counted this request and its X-RateLimit-* headers show. */
    rateLimit: BucketState;
  }
}

function tightest(buckets: BucketState[]): BucketState {
  return buckets.reduce((a, b) => (b.remaining < a.remaining || (b.remaining === a.remaining && b.limit < a.limit) ? b : a));
}

function headersOf(b: BucketState): [string, string][] {
  return [
    ["X-RateLimit-Limit", String(b.limit)],
    ["X-RateLimit-Remaining", String(b.remaining)],
    ["X-RateLimit-Reset", String(b.reset)],
  ];
}

function refusal(shown: BucketState, retryAfter: number) {
  return rateLimited(`Rate limit of ${shown.limit} requests per minute exceeded (${shown.name.split(":")[0]}); retry after ${retryAfter} s`, retryAfter);
}

/** This isolate's shares of organizations' windows. */
export const leasedWindows = new LeasedWindows();

/** Counts an authenticated request in its organization's buckets; 429 when one is exhausted. */
export const rateLimit = createMiddleware<HttpEnv>(async (c, next) => {
  const principal = c.get("principal");
  const requests = bucketsFor(c.req.method, c.req.path, principal, c.get("limits"));
  const gate = orgGate(c.env, principal.orgId);
  const result = await leasedWindows.consume(principal.orgId, requests, (asks, nowMs) => gate.lease(asks, nowMs));
  const shown = result.allowed ? tightest(result.buckets) : tightest(result.buckets.filter((b) => b.remaining === 0));
  c.set("rateLimit", shown);
  for (const [name, value] of headersOf(shown)) c.header(name, value);
  if (!result.allowed) throw refusal(shown, result.retryAfter);
  await next();
});

/** Counts one request in one bucket of `orgId` and shows that bucket on the response; 429 once spent. */
async function countInOrgBucket(c: Context<HttpEnv>, orgId: string, bucket: BucketRequest): Promise<void> {
  const gate = orgGate(c.env, orgId);
  const result = await leasedWindows.consume(orgId, [bucket], (asks, nowMs) => gate.lease(asks, nowMs));
  const shown = result.buckets[0]!;
  c.set("rateLimit", shown);
  if (!result.allowed) throw refusal(shown, result.retryAfter);
}

/**
 * Counts a request refused for a valid credential's organization (the wrong X-Organization-ID, a
 * path naming another org) in that organization's API bucket: the credential's holder spends its
 * own organization's window, not the budget of the client IP it may share with others.
 */
export function countRefusedInOrg(c: Context<HttpEnv>, orgId: string, limits: Limits): Promise<void> {
  return countInOrgBucket(c, orgId, orgBucket(limits));
}

/**
 * Counts a verified wearable webhook delivery in its organization's bucket for the platform
 * (`webhook:<kind>`, LIMIT_WEBHOOK_PER_MINUTE), leased from the OrgGate like the API bucket; 429
 * with Retry-After once the window is spent (vendors retry). The response then shows this bucket,
 * and the client IP's bucket does not count it: a vendor pushes from a few addresses for all its
 * users. Called only once the signature verified, so an unsigned flood cannot spend an
 * organization's window (it counts per client IP, as requests refused by authentication do).
 */
export function countWebhookDelivery(c: Context<HttpEnv>, orgId: string, kind: string): Promise<void> {
  return countInOrgBucket(c, orgId, { name: `webhook:${kind}`, limit: webhookPerMinute(c.env), windowSeconds: 60 });
}

/** This isolate's per-client windows. */
export const clientWindows = new ClientWindows();

/** Cloudflare sets CF-Connecting-IP at its edge (a client cannot forge it); locally it may be absent. */
const clientOf = (c: Context<HttpEnv>) => c.req.header("cf-connecting-ip") ?? "unknown";

/**
 * Outermost: once the response is known, counts the request in its client's bucket unless an
 * organization's bucket counted it, and puts that bucket's headers on the response (also on
 * responses a handler built itself, which Hono's c.header values do not reach). Requests no
 * organization counts have no side effects (public reads, or refused before any work), so one
 * over the client's limit is answered 429 instead.
 */
export const rateLimitHeaders = createMiddleware<HttpEnv>(async (c, next) => {
  await next();
  let bucket = c.get("rateLimit");
  if (!bucket) {
    const result = clientWindows.consume(clientOf(c), publicPerMinute(c.env), Date.now());
    bucket = result.buckets[0]!;
    if (!result.allowed) c.res = errorResponse(c, refusal(bucket, result.retryAfter));
  }
  for (const [name, value] of headersOf(bucket)) if (c.res.headers.get(name) !== value) c.header(name, value);
});
