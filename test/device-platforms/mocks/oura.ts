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

/**
 * Oura's app-level webhook subscription API (`x-client-id` / `x-client-secret`, no user token):
 * `GET /v2/webhook/subscription` lists, `PUT /v2/webhook/subscription/renew/{id}` moves the
 * expiry 90 days on. Requests for other paths go to `next`.
 */
export function ouraSubscriptionApi(clientId: string, clientSecret: string, subscriptions: OuraSubscription[], next: typeof fetch): { fetch: typeof fetch; renewed: string[] } {
  const renewed: string[] = [];
  const handler = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const req = new Request(input, init);
    const url = new URL(req.url);
    if (url.origin !== OURA_ORIGIN || !url.pathname.startsWith("/v2/webhook/subscription")) return next(input, init);
    if (req.headers.get("x-client-id") !== clientId || req.headers.get("x-client-secret") !== clientSecret) return Response.json({ detail: "Unauthorized" }, { status: 401 });
    if (req.method === "GET" && url.pathname === "/v2/webhook/subscription") return Response.json(subscriptions);
    const id = /^\/v2\/webhook\/subscription\/renew\/([^/]+)$/.exec(url.pathname)?.[1];
    const sub = subscriptions.find((s) => s.id === id);
    if (req.method !== "PUT" || !sub) return Response.json({ detail: "Not Found" }, { status: 404 });
    sub.expiration_time = new Date(Date.now() + 90 * 86_400_000).toISOString();
    renewed.push(sub.id);
    return Response.json(sub);
  };
  return { fetch: handler as typeof fetch, renewed };
}
