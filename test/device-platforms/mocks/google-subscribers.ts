// Google's service-account side, added to the Google Health mock: the token endpoint's JWT bearer
// grant (RFC 7523 as Google documents it: RS256 signature checked against the service account's
// public key, `iss` a known account, `aud` the token endpoint, the cloud-platform scope, a token
// living at most an hour and issued now; `invalid_grant` otherwise) and projects.subscribers per
// the discovery document rev. 20260527 (create / list / patch / delete; create and patch verify the
// endpoint with the two POSTs `{"type":"verification"}`, 201 with the secret and 401/403
// without, and fail FAILED_PRECONDITION otherwise; answers are Operations). The verification
// POSTs reach the service under test through `verifyEndpoint`.
import type { GoogleHealthMock } from "./google-health";

const JWT_BEARER = "urn:ietf:params:oauth:grant-type:jwt-bearer";
const CLOUD_PLATFORM = "https://www.googleapis.com/auth/cloud-platform";
const NOTIFIABLE = new Set(["altitude", "distance", "floors", "sleep", "steps", "weight"]);
const SUBSCRIBER_ID = /^[a-z]([a-z0-9-]{2,34}[a-z0-9])$/;

type Doc = Record<string, unknown>;
const googleError = (code: number, status: string, message: string) => Response.json({ error: { code, message, status } }, { status: code });
const invalidGrant = (description: string) => Response.json({ error: "invalid_grant", error_description: description }, { status: 400 });
const fromBase64url = (s: string) => Uint8Array.from(atob(s.replace(/-/g, "+").replace(/_/g, "/").padEnd(Math.ceil(s.length / 4) * 4, "=")), (c) => c.charCodeAt(0));

export interface GoogleSubscribersMock {
  /** Service accounts Google knows: client_email → public key. */
  readonly accounts: Map<string, CryptoKey>;
  /** The Cloud projects each account may manage. */
  readonly projects: Map<string, string>;
  readonly subscribers: Map<string, Doc>;
  /** Per-user subscriptions (MANUAL subscribers), by resource name. */
  readonly subscriptions: Map<string, Doc>;
  /** Every verification POST Google made and the status it got. */
  readonly verifications: { uri: string; withAuthorization: boolean; status: number }[];
  readonly calls: { method: string; path: string; query: string }[];
  /** How Google's verification POST reaches the endpoint (the test hands it the service). */
  verifyEndpoint: (uri: string, init: RequestInit) => Promise<Response>;
}

export function addGoogleSubscribers(mock: GoogleHealthMock, tokenUrl: string): GoogleSubscribersMock {
  const tokens = new Map<string, string>();
  const state: GoogleSubscribersMock = { accounts: new Map(), projects: new Map(), subscribers: new Map(), subscriptions: new Map(), verifications: [], calls: [], verifyEndpoint: async () => new Response(null, { status: 503 }) };

  async function jwtGrant(assertion: string): Promise<Response> {
    const [h = "", c = "", sig = ""] = assertion.split(".");
    let header: Doc;
    let claims: Doc;
    try {
      header = JSON.parse(new TextDecoder().decode(fromBase64url(h))) as Doc;
      claims = JSON.parse(new TextDecoder().decode(fromBase64url(c))) as Doc;
    } catch {
      return invalidGrant("Invalid JWT.");
    }
    if (header.alg !== "RS256") return invalidGrant("Invalid JWT: unsupported algorithm.");
    const key = state.accounts.get(String(claims.iss));
    if (!key) return invalidGrant("Invalid JWT: unknown service account.");
    if (!(await crypto.subtle.verify("RSASSA-PKCS1-v1_5", key, fromBase64url(sig), new TextEncoder().encode(`${h}.${c}`)))) return invalidGrant("Invalid JWT Signature.");
    const now = Date.now() / 1000;
    const [iat, exp] = [Number(claims.iat), Number(claims.exp)];
    if (!(exp > now && exp - iat <= 3600 && Math.abs(iat - now) < 300)) return invalidGrant("Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe.");
    if (claims.aud !== tokenUrl) return invalidGrant("Invalid JWT: audience is not the token endpoint.");
    if (!String(claims.scope ?? "").split(" ").includes(CLOUD_PLATFORM)) return Response.json({ error: "invalid_scope" }, { status: 400 });
    const token = `ya29.sa-${crypto.randomUUID()}`;
    tokens.set(token, String(claims.iss));
    return Response.json({ access_token: token, expires_in: 3599, token_type: "Bearer" });
  }

  /** The documented verification pair; true when both answered as Google requires. */
  async function verify(uri: string, secret: string): Promise<boolean> {
    const body = JSON.stringify({ type: "verification" });
    const withAuth = await state.verifyEndpoint(uri, { method: "POST", body, headers: { "content-type": "application/json", authorization: secret } });
    const without = await state.verifyEndpoint(uri, { method: "POST", body, headers: { "content-type": "application/json" } });
    state.verifications.push({ uri, withAuthorization: true, status: withAuth.status }, { uri, withAuthorization: false, status: without.status });
    return withAuth.status === 201 && (without.status === 401 || without.status === 403);
  }

  function checkPayload(p: Doc): Response | undefined {
    const uri = String(p.endpointUri ?? "");
    if (!uri.startsWith("https://")) return googleError(400, "INVALID_ARGUMENT", "endpoint_uri must be a valid HTTPS URL");
    const configs = Array.isArray(p.subscriberConfigs) ? (p.subscriberConfigs as Doc[]) : [];
    for (const cfg of configs) {
      const types = Array.isArray(cfg.dataTypes) ? (cfg.dataTypes as string[]) : [];
      const bad = types.find((t) => !NOTIFIABLE.has(t));
      if (bad) return googleError(400, "INVALID_ARGUMENT", `Unsupported data type: ${bad}`);
      if (cfg.subscriptionCreatePolicy !== "AUTOMATIC" && cfg.subscriptionCreatePolicy !== "MANUAL") return googleError(400, "INVALID_ARGUMENT", "subscription_create_policy is required");
    }
    return undefined;
  }

  const operation = (response: Doc) => Response.json({ name: `operations/${crypto.randomUUID()}`, done: true, response: { "@type": "type.googleapis.com/google.devicesandservices.health.v4.Subscriber", ...response } });
  const visible = (s: Doc) => ({ ...stripSecret(s), endpointAuthorization: { secretSet: true } });

  async function subscribersApi(req: Request, url: URL): Promise<Response> {
    state.calls.push({ method: req.method, path: url.pathname, query: url.search });
    const account = tokens.get(req.headers.get("authorization")?.replace(/^Bearer /, "") ?? "");
    if (!account) return googleError(401, "UNAUTHENTICATED", "Request had invalid authentication credentials.");
    const m = /^\/v4\/projects\/([^/]+)\/subscribers(?:\/([^/]+))?(\/subscriptions(?:\/([^/]+))?)?$/.exec(url.pathname);
    if (!m) return googleError(404, "NOT_FOUND", "Not found");
    const [, project = "", id, subscriptions, subscriptionId] = m;
    if (state.projects.get(account) !== project) return googleError(403, "PERMISSION_DENIED", `The caller does not have permission on project ${project}`);
    if (subscriptions) return subscriptionsApi(req, url, `projects/${project}/subscribers/${id}`, subscriptionId);
    const now = new Date().toISOString();
    if (!id && req.method === "GET") {
      const all = [...state.subscribers.values()].filter((s) => String(s.name).startsWith(`projects/${project}/`)).map(visible);
      const at = Number(url.searchParams.get("pageToken") ?? "0");
      const size = Math.min(Number(url.searchParams.get("pageSize") ?? "50"), 2);
      return Response.json({ subscribers: all.slice(at, at + size), totalSize: all.length, ...(at + size < all.length ? { nextPageToken: String(at + size) } : {}) });
    }
    if (!id && req.method === "POST") {
      const subscriberId = url.searchParams.get("subscriberId") ?? crypto.randomUUID();
      if (!SUBSCRIBER_ID.test(subscriberId)) return googleError(400, "INVALID_ARGUMENT", "subscriber_id must match /[a-z]([a-z0-9-]{2,34}[a-z0-9])/");
      const name = `projects/${project}/subscribers/${subscriberId}`;
      if (state.subscribers.has(name)) return googleError(409, "ALREADY_EXISTS", "Subscriber already exists");
      const payload = (await req.json()) as Doc;
      const bad = checkPayload(payload);
      if (bad) return bad;
      const secret = String((payload.endpointAuthorization as Doc | undefined)?.secret ?? "");
      if (!secret) return googleError(400, "INVALID_ARGUMENT", "endpoint_authorization.secret is required");
      if (!(await verify(String(payload.endpointUri), secret))) return googleError(400, "FAILED_PRECONDITION", "Endpoint verification failed");
      const subscriber = { name, endpointUri: payload.endpointUri, subscriberConfigs: payload.subscriberConfigs ?? [], secret, state: "ACTIVE", createTime: now, updateTime: now };
      state.subscribers.set(name, subscriber);
      return operation(visible(subscriber));
    }
    const name = `projects/${project}/subscribers/${id}`;
    const current = state.subscribers.get(name);
    if (!current) return googleError(404, "NOT_FOUND", `Subscriber ${name} not found`);
    if (req.method === "PATCH") {
      const payload = (await req.json()) as Doc;
      const mask = (url.searchParams.get("updateMask") ?? "").split(",").filter(Boolean);
      const next: Doc = { ...current, updateTime: now };
      if (mask.includes("endpointUri")) next.endpointUri = payload.endpointUri;
      if (mask.includes("subscriberConfigs")) next.subscriberConfigs = payload.subscriberConfigs;
      if (mask.includes("endpointAuthorization")) next.secret = (payload.endpointAuthorization as Doc | undefined)?.secret;
      const bad = checkPayload(next);
      if (bad) return bad;
      if ((mask.includes("endpointUri") || mask.includes("endpointAuthorization")) && !(await verify(String(next.endpointUri), String(next.secret)))) return googleError(400, "FAILED_PRECONDITION", "Endpoint verification failed");
      state.subscribers.set(name, next);
      return operation(visible(next));
    }
    if (req.method === "DELETE") {
      state.subscribers.delete(name);
      return Response.json({ name: `operations/${crypto.randomUUID()}`, done: true, response: { "@type": "type.googleapis.com/google.protobuf.Empty" } });
    }
    return googleError(405, "UNIMPLEMENTED", "Method not allowed");
  }

  /** projects.subscribers.subscriptions: create (MANUAL subscribers only) and delete. */
  async function subscriptionsApi(req: Request, url: URL, parent: string, id: string | undefined): Promise<Response> {
    const subscriber = state.subscribers.get(parent);
    if (!subscriber) return googleError(404, "NOT_FOUND", `Subscriber ${parent} not found`);
    if (req.method === "POST" && !id) {
      const configs = (subscriber.subscriberConfigs as Doc[] | undefined) ?? [];
      if (!configs.some((c) => c.subscriptionCreatePolicy === "MANUAL")) return googleError(400, "FAILED_PRECONDITION", "The subscriber's SubscriptionCreatePolicy is not MANUAL");
      const subscriptionId = url.searchParams.get("subscriptionId") ?? crypto.randomUUID();
      if (!SUBSCRIBER_ID.test(subscriptionId)) return googleError(400, "INVALID_ARGUMENT", "subscription_id must match /[a-z]([a-z0-9-]{2,34}[a-z0-9])/");
      const name = `${parent}/subscriptions/${subscriptionId}`;
      if (state.subscriptions.has(name)) return googleError(409, "ALREADY_EXISTS", "Subscription already exists");
      const payload = (await req.json()) as Doc;
      const user = String(payload.user ?? "");
      if (!/^users\/[A-Za-z0-9-]{1,63}$/.test(user)) return googleError(400, "INVALID_ARGUMENT", "user must be users/{healthUserId}");
      const allowed = new Set(configs.flatMap((c) => (c.dataTypes as string[]) ?? []).map((t) => `${user}/dataTypes/${t}`));
      const types = (payload.dataTypes as string[] | undefined) ?? [];
      const bad = types.find((t) => !allowed.has(t));
      if (bad) return googleError(400, "INVALID_ARGUMENT", `A subscription can only subscribe to the subscriber's data types, as users/{user}/dataTypes/{type}: ${bad}`);
      const subscription = { name, user, dataTypes: types };
      state.subscriptions.set(name, subscription);
      return Response.json(subscription);
    }
    if (req.method === "DELETE" && id) {
      const name = `${parent}/subscriptions/${id}`;
      if (!state.subscriptions.delete(name)) return googleError(404, "NOT_FOUND", `Subscription ${name} not found`);
      return Response.json({});
    }
    return googleError(405, "UNIMPLEMENTED", "Method not allowed");
  }

  const base = mock.fetch;
  // Stored subscribers keep the secret (Google does); the list and the operations never show it.
  (mock as { fetch: typeof fetch }).fetch = async (input: RequestInfo | URL, init?: RequestInit) => {
    const req = new Request(input, init);
    const url = new URL(req.url);
    if (req.method === "POST" && `${url.origin}${url.pathname}` === tokenUrl) {
      const form = await req.clone().formData();
      if (form.get("grant_type") === JWT_BEARER) return jwtGrant(String(form.get("assertion") ?? ""));
    }
    if (url.pathname.startsWith("/v4/projects/")) return subscribersApi(req, url);
    return base(req);
  };
  return state;
}

function stripSecret(s: Doc): Doc {
  const { secret: _secret, ...rest } = s;
  return rest;
}
