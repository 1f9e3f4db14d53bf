// Polar AccessLink v3 as documented (reference 1.5): token endpoint with Basic client auth,
// `x_user_id` and no refresh token; user registration; exercises by id and as a list; sleep by
// night and as a list; and a
// webhook sender signing Polar-Webhook-Signature = hex HMAC-SHA256(signature_secret_key, body).
import { createHmac } from "node:crypto";
import exercise from "../../fixtures/wearables/polar-exercise.json";
import { VendorMock } from "./vendor-mock";

export const POLAR_ORIGIN = "http://127.0.0.1:7104";

type Doc = Record<string, unknown>;

export function polarMock(clientId = "polar-client", clientSecret = "polar-secret") {
  // The user's exercises by id and nights by date, which tests may add to.
  const exercises = new Map<string, Doc>([[exercise.id, exercise]]);
  const nights = new Map<string, Doc>();
  const mock = Object.assign(
    new VendorMock({ origin: POLAR_ORIGIN, tokenPath: "/v2/oauth2/token", clientId, clientSecret, clientAuth: "basic", rotate: false, noRefresh: true, expiresIn: 315_360_000, tokenExtras: (u) => ({ x_user_id: Number(u.id) }) }),
    { registered: [] as string[], deleted: [] as string[], exercises, nights },
  );
  const found = (doc: Doc | undefined) => (doc ? Response.json(doc) : Response.json({}, { status: 404 }));
  mock
    .route("POST", /^\/v3\/users$/, async (req) => {
      const body = (await req.json()) as Record<string, string>;
      if (mock.registered.includes(body["member-id"] ?? "")) return new Response(null, { status: 409 });
      mock.registered.push(body["member-id"] ?? "");
      return Response.json({ "polar-user-id": 475, "member-id": body["member-id"] });
    })
    .route("DELETE", /^\/v3\/users\/(\d+)$/, (_req, _u, m) => {
      mock.deleted.push(m[1] ?? "");
      return new Response(null, { status: 204 });
    })
    .route("GET", /^\/v3\/exercises\/(\w+)$/, (_req, _u, m) => found(exercises.get(m[1] ?? "")))
    .route("GET", /^\/v3\/exercises$/, () => Response.json([...exercises.values()]))
    // Sleep: the last 28 nights, or one night by date (the SLEEP notification's url).
    .route("GET", /^\/v3\/users\/sleep\/(\d{4}-\d{2}-\d{2})$/, (_req, _u, m) => found(nights.get(m[1] ?? "")))
    .route("GET", /^\/v3\/users\/sleep$/, () => Response.json({ nights: [...nights.values()] }));
  return mock;
}

export function polarSignedHeaders(secret: string, body: string, event = "EXERCISE"): Record<string, string> {
  return { "content-type": "application/json", "polar-webhook-event": event, "polar-webhook-signature": createHmac("sha256", secret).update(body).digest("hex") };
}

const WEBHOOK_TYPES = new Set(["EXERCISE", "SLEEP", "CONTINUOUS_HEART_RATE", "ACTIVITY_SUMMARY", "SLEEP_WISE_ALERTNESS", "SLEEP_WISE_CIRCADIAN_BEDTIME", "PHYSICAL_INFORMATION"]);

interface PolarWebhook {
  id: string;
  events: string[];
  url: string;
  signature_secret_key: string;
}

export interface PolarWebhookApi {
  fetch: typeof fetch;
  /** The client's webhook (one per client), with the key Polar signs with. */
  webhook: PolarWebhook | undefined;
  /** Every PING Polar sent and the status it got. */
  pings: { url: string; signed: boolean; status: number }[];
  /** How Polar's PING reaches the url (the test hands it the service). */
  deliver: (url: string, body: string, headers: Record<string, string>) => Promise<Response>;
}

/**
 * AccessLink's webhook management (reference 1.5; AccessLink v3 `WebhookRequest`,
 * `CreatedWebhook`, `WebhookInfo`, `WebhookPatch`), Basic client credentials, one webhook per
 * client: `POST /v3/webhooks` PINGs the url (`{"event":"PING","timestamp"}`, signed with the new
 * key) and creates it only on a 200, answering 201 `{data: {id, events, url,
 * signature_secret_key}}` (the only time the key is shown); a second POST is 409. `GET` answers
 * `{data: {id, events, url}}` (204 without one), `PATCH /v3/webhooks/{id}` changes events or url
 * (a new url is PINGed too), `DELETE` answers 204. Other requests go to `next`.
 */
export function polarWebhookApi(clientId: string, clientSecret: string, next: typeof fetch): PolarWebhookApi {
  const api: PolarWebhookApi = { fetch: next, webhook: undefined, pings: [], deliver: async () => new Response(null, { status: 503 }) };
  const error = (status: number, message: string) => Response.json({ timestamp: new Date().toISOString(), status, errorType: status === 409 ? "CONFLICT" : "BAD_REQUEST", message }, { status });
  async function ping(url: string, key: string): Promise<boolean> {
    const body = JSON.stringify({ event: "PING", timestamp: new Date().toISOString() });
    const res = await api.deliver(url, body, { ...polarSignedHeaders(key, body, "PING") });
    api.pings.push({ url, signed: true, status: res.status });
    return res.status === 200;
  }
  const checked = (body: Record<string, unknown>): string | undefined => {
    const events = Array.isArray(body.events) ? body.events : [];
    if (!events.length || events.some((e) => !WEBHOOK_TYPES.has(String(e)))) return `events must be a non-empty list of ${[...WEBHOOK_TYPES].join(", ")}`;
    return typeof body.url === "string" && /^https?:\/\//.test(body.url) ? undefined : "url is required";
  };
  api.fetch = (async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const req = new Request(input, init);
    const url = new URL(req.url);
    if (url.origin !== POLAR_ORIGIN || !url.pathname.startsWith("/v3/webhooks")) return next(input, init);
    if (req.headers.get("authorization") !== `Basic ${btoa(`${clientId}:${clientSecret}`)}`) return error(401, "Unauthorized");
    const id = /^\/v3\/webhooks\/([^/]+)$/.exec(url.pathname)?.[1];
    const { webhook } = api;
    const visible = (w: PolarWebhook) => ({ id: w.id, events: w.events, url: w.url });
    if (!id && req.method === "GET") return webhook ? Response.json({ data: visible(webhook) }) : new Response(null, { status: 204 });
    if (!id && req.method === "POST") {
      if (webhook) return error(409, "Webhook already exists for the client");
      const body = (await req.json().catch(() => ({}))) as Record<string, unknown>;
      const bad = checked(body);
      if (bad) return error(400, bad);
      const created = { id: crypto.randomUUID().slice(0, 8), events: body.events as string[], url: String(body.url), signature_secret_key: crypto.randomUUID() };
      if (!(await ping(created.url, created.signature_secret_key))) return error(400, "Webhook ping failed: the url did not answer 200 OK");
      api.webhook = created;
      return Response.json({ data: created }, { status: 201 });
    }
    if (!webhook || id !== webhook.id) return error(404, "Webhook not found");
    if (req.method === "PATCH") {
      const body = { ...visible(webhook), ...((await req.json().catch(() => ({}))) as Record<string, unknown>) };
      const bad = checked(body);
      if (bad) return error(400, bad);
      if (body.url !== webhook.url && !(await ping(String(body.url), webhook.signature_secret_key))) return error(400, "Webhook ping failed: the url did not answer 200 OK");
      api.webhook = { ...webhook, events: body.events as string[], url: String(body.url) };
      return Response.json({ data: visible(api.webhook) });
    }
    if (req.method === "DELETE") {
      api.webhook = undefined;
      return new Response(null, { status: 204 });
    }
    return error(405, "Method not allowed");
  }) as typeof fetch;
  return api;
}
