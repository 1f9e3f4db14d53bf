// The org's vendor-side webhook registration (platforms with a SubscriberSpec: Google Health,
// Oura, Polar):
// register or update it at the org's webhook endpoint, report it, remove it. The vendor's
// refusals become API errors an administrator can act on: the app credentials refused → 400,
// the vendor refusing the request (its endpoint verification failed, bad project) → 422,
// its rate limit → 429 with Retry-After, the vendor down → 502.
import { type PlatformCall, PlatformError } from "../../platform-adapter";
import { ApiError, badRequest, notFound } from "../../../../platform/errors";
import type { OrgContext } from "../../../../platform/org-context";
import type { SubscriberSpec, SubscriberState, SubscriberTarget } from "../platform";

function apiErrorOf(e: unknown): unknown {
  if (!(e instanceof PlatformError)) return e;
  switch (e.kind) {
    case "unauthorized":
    case "revoked":
      return new ApiError(400, "PLATFORM_CREDENTIALS_REJECTED", `The platform refused the organization's app credentials: ${e.message}`);
    case "invalid":
      return new ApiError(422, "PLATFORM_REJECTED", e.message);
    case "rate_limited":
      return new ApiError(429, "PLATFORM_RATE_LIMITED", e.message, [], { "retry-after": String(e.retryAfterSeconds ?? 60) });
    default:
      return new ApiError(502, "PLATFORM_UNAVAILABLE", e.message);
  }
}

async function withSubscriber<T>(data: OrgContext, kind: string, work: (spec: SubscriberSpec, call: PlatformCall) => Promise<T>): Promise<T> {
  const platform = data.devicePlatforms.of(kind);
  if (!platform) throw notFound(`Unknown platform ${kind}`, "PLATFORM_NOT_FOUND");
  if (!platform.subscriber) throw notFound(`The ${kind} platform has no subscriber to manage (its webhooks are registered at the vendor's console or per user)`, "SUBSCRIBER_NOT_SUPPORTED");
  const services = data.platformServices;
  const credentials = await services.credentialsFor(data, kind);
  if (!credentials) throw notFound(`The ${kind} platform is not configured for this organization`, "PLATFORM_NOT_CONFIGURED");
  try {
    return await work(platform.subscriber, { credentials, fetch: services.fetch(data.env) });
  } catch (e) {
    throw apiErrorOf(e);
  }
}

/** Google (and the other vendors' production hosts) accept only an HTTPS endpoint; saying so here beats an opaque refusal. */
function checkEndpoint(endpointUri: string): void {
  if (!endpointUri.startsWith("https://")) {
    throw badRequest("The webhook endpoint must be HTTPS", [{ path: "endpoint_uri", message: `${endpointUri} is not HTTPS: set PUBLIC_BASE_URL, or the integration's webhook_url setting` }]);
  }
}

/**
 * Registers or updates it; a secret the vendor issued (Polar's) is kept with the integration (the
 * webhook path, finding its cached credentials fail, reads them afresh).
 */
export async function putSubscriber(data: OrgContext, kind: string, target: SubscriberTarget): Promise<SubscriberState & { created: boolean }> {
  checkEndpoint(target.endpointUri);
  const { issuedCredentials, ...state } = await withSubscriber(data, kind, (spec, call) => spec.put(call, target));
  if (issuedCredentials && Object.keys(issuedCredentials).length) {
    await data.platformServices.keepCredentials(data, kind, issuedCredentials);
  }
  return state;
}

export async function getSubscriber(data: OrgContext, kind: string, target: SubscriberTarget): Promise<SubscriberState> {
  const state = await withSubscriber(data, kind, (spec, call) => spec.get(call, target));
  if (!state) throw notFound(`The ${kind} platform has no subscriber for this organization`, "SUBSCRIBER_NOT_FOUND");
  return state;
}

export async function deleteSubscriber(data: OrgContext, kind: string, target: SubscriberTarget): Promise<void> {
  if (!(await withSubscriber(data, kind, (spec, call) => spec.remove(call, target)))) throw notFound(`The ${kind} platform has no subscriber for this organization`, "SUBSCRIBER_NOT_FOUND");
}

/** The endpoint the vendor should call: the integration's `webhook_url` setting, else this deployment's own. */
export async function subscriberTarget(data: OrgContext, kind: string, ownEndpoint: string): Promise<SubscriberTarget> {
  const credentials = await data.platformServices.credentialsFor(data, kind);
  return { orgId: data.orgId, endpointUri: credentials?.extra?.webhook_url ?? ownEndpoint };
}
