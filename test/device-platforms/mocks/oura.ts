// Oura API v2 as documented (reference 1.3): token endpoint with body credentials and rotating
// single-use refresh tokens, personal_info, usercollection lists with `next_token` paging and
// documents by id, and a webhook sender signing `x-oura-signature` = upper-case hex
// HMAC-SHA256(client secret, x-oura-timestamp + body).
import { createHmac } from "node:crypto";
import dailySleep from "../../fixtures/wearables/oura-daily-sleep.json";
import sleep from "../../fixtures/wearables/oura-sleep.json";
import { type MockUser, VendorMock } from "./vendor-mock";

export const OURA_ORIGIN = "http://127.0.0.1:7101";

export function ouraMock(clientId = "oura-client", clientSecret = "oura-secret"): VendorMock & { docs: Map<string, Record<string, unknown>[]> } {
  const mock = new VendorMock({ origin: OURA_ORIGIN, tokenPath: "/oauth/token", revokePath: "/oauth/revoke", clientId, clientSecret, clientAuth: "post", rotate: true, expiresIn: 86_400 });
  // Documents by data type (every user sees the same fixtures in this mock).
  const docs = new Map<string, Record<string, unknown>[]>([
    ["daily_sleep", [...dailySleep.data, { ...dailySleep.data[0], id: "ds-2", day: "2024-01-16", score: 71 }]],
    ["sleep", sleep.data],
  ]);
  mock
    .route("GET", /^\/v2\/usercollection\/personal_info$/, (_req, user: MockUser) => Response.json({ id: user.id, age: 41, email: "p@example.org" }))
    .route("GET", /^\/v2\/usercollection\/(\w+)\/([^/]+)$/, (_req, _user, m) => {
      const doc = docs.get(m[1] ?? "")?.find((d) => d.id === decodeURIComponent(m[2] ?? ""));
      return doc ? Response.json(doc) : Response.json({ detail: "Not Found" }, { status: 404 });
    })
    .route("GET", /^\/v2\/usercollection\/(\w+)$/, (req, _user, m) => {
      // One document per page, so paging is exercised.
      const all = docs.get(m[1] ?? "") ?? [];
      const at = Number(new URL(req.url).searchParams.get("next_token") ?? "0");
      return Response.json({ data: all.slice(at, at + 1), next_token: at + 1 < all.length ? String(at + 1) : null });
    });
  return Object.assign(mock, { docs });
}

export function ouraSignedHeaders(secret: string, body: string, timestamp = String(Math.floor(Date.now() / 1000))): Record<string, string> {
  const signature = createHmac("sha256", secret).update(timestamp + body).digest("hex").toUpperCase();
  return { "content-type": "application/json", "x-oura-signature": signature, "x-oura-timestamp": timestamp };
}

export interface OuraSubscription {
  id: string;
  callback_url: string;
  event_type: string;
  data_type: string;
  expiration_time: string;
}

const OURA_DATA_TYPES = new Set(["tag", "enhanced_tag", "workout", "session", "sleep", "daily_sleep", "daily_readiness", "daily_activity", "daily_spo2", "sleep_time", "rest_mode_period", "ring_configuration", "daily_stress", "daily_resilience", "daily_cardiovascular_age", "vO2_max", "heartrate"]);
const OURA_EVENT_TYPES = new Set(["create", "update", "delete"]);

export interface OuraSubscriptionApi {
  fetch: typeof fetch;
  renewed: string[];
  /** Every verification GET Oura made and the status it got. */
  verifications: { url: string; status: number }[];
  /** How Oura's verification GET reaches the callback (the test hands it the service). */
  verifyEndpoint: (url: string) => Promise<Response>;
}

/**
 * Oura's app-level webhook subscription API (`x-client-id` / `x-client-secret`, no user token;
 * reference 1.3 and Oura's OpenAPI): `GET /v2/webhook/subscription` lists the app's
 * subscriptions; `POST` creates one from `{callback_url, verification_token, event_type,
 * data_type}` after calling the callback with `GET ?verification_token=…&challenge=…`, which must
 * answer `{"challenge": …}` (otherwise 400: Oura does not document the refusal's status);
 * `DELETE /{id}` removes one (204); `PUT /renew/{id}` moves the expiry 90 days on. Requests for
 * other paths go to `next`.
 */
export function ouraSubscriptionApi(clientId: string, clientSecret: string, subscriptions: OuraSubscription[], next: typeof fetch): OuraSubscriptionApi {
  const api: OuraSubscriptionApi = { fetch: next, renewed: [], verifications: [], verifyEndpoint: async () => new Response(null, { status: 503 }) };
  const validation = (msg: string) => Response.json({ detail: [{ loc: ["body"], msg, type: "value_error" }] }, { status: 422 });
  async function create(req: Request): Promise<Response> {
    const body = (await req.json().catch(() => ({}))) as Record<string, string>;
    if (!OURA_DATA_TYPES.has(body.data_type ?? "")) return validation(`data_type ${body.data_type} is not one of the webhook data types`);
    if (!OURA_EVENT_TYPES.has(body.event_type ?? "")) return validation(`event_type ${body.event_type} is not create, update or delete`);
    if (!body.callback_url || !body.verification_token) return validation("callback_url and verification_token are required");
    const challenge = crypto.randomUUID();
    const probe = new URL(body.callback_url);
    probe.searchParams.set("verification_token", body.verification_token);
    probe.searchParams.set("challenge", challenge);
    const answer = await api.verifyEndpoint(probe.toString());
    api.verifications.push({ url: body.callback_url, status: answer.status });
    const echoed = answer.ok ? ((await answer.json().catch(() => ({}))) as { challenge?: string }).challenge : undefined;
    if (echoed !== challenge) return Response.json({ detail: "Webhook verification failed: the callback did not return the challenge" }, { status: 400 });
    const sub = { id: crypto.randomUUID(), callback_url: body.callback_url, event_type: body.event_type!, data_type: body.data_type!, expiration_time: new Date(Date.now() + 90 * 86_400_000).toISOString() };
    subscriptions.push(sub);
    return Response.json(sub, { status: 201 });
  }
  api.fetch = (async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const req = new Request(input, init);
    const url = new URL(req.url);
    if (url.origin !== OURA_ORIGIN || !url.pathname.startsWith("/v2/webhook/subscription")) return next(input, init);
    if (req.headers.get("x-client-id") !== clientId || req.headers.get("x-client-secret") !== clientSecret) return Response.json({ detail: "Unauthorized" }, { status: 401 });
    if (url.pathname === "/v2/webhook/subscription") {
      if (req.method === "GET") return Response.json(subscriptions);
      if (req.method === "POST") return create(req);
    }
    const renew = /^\/v2\/webhook\/subscription\/renew\/([^/]+)$/.exec(url.pathname)?.[1];
    const byId = /^\/v2\/webhook\/subscription\/([^/]+)$/.exec(url.pathname)?.[1];
    const at = subscriptions.findIndex((s) => s.id === (renew ?? byId));
    if (at < 0) return Response.json({ detail: "Not Found" }, { status: 404 });
    if (renew && req.method === "PUT") {
      const sub = subscriptions[at]!;
      sub.expiration_time = new Date(Date.now() + 90 * 86_400_000).toISOString();
      api.renewed.push(sub.id);
      return Response.json(sub);
    }
    if (byId && req.method === "DELETE") {
      subscriptions.splice(at, 1);
      return new Response(null, { status: 204 });
    }
    return Response.json({ detail: "Method Not Allowed" }, { status: 405 });
  }) as typeof fetch;
  return api;
}
