// Suunto Cloud API as documented (reference 1.6): token endpoint with Basic client auth issuing
// JWT access tokens (claims `user` = username, `sub`), workouts that require the
// Ocp-Apim-Subscription-Key header, and a webhook sender signing X-HMAC-SHA256-Signature.
import { createHmac } from "node:crypto";
import created from "../../fixtures/wearables/suunto-workout-created.json";
import { type MockUser, VendorMock } from "./vendor-mock";

export const SUUNTO_ORIGIN = "http://127.0.0.1:7105";
export const SUBSCRIPTION_KEY = "apim-primary-key";

const b64url = (v: unknown) => Buffer.from(JSON.stringify(v)).toString("base64url");

export function suuntoMock(clientId = "suunto-client", clientSecret = "suunto-secret") {
  const jwt = (u: MockUser) => `${b64url({ alg: "RS256", typ: "JWT" })}.${b64url({ user: u.id, sub: `sub-${u.id}`, iat: Math.floor(Date.now() / 1000), rnd: Math.random() })}.c2lnbmF0dXJl`;
  const mock = new VendorMock({ origin: SUUNTO_ORIGIN, tokenPath: "/oauth/token", clientId, clientSecret, clientAuth: "basic", rotate: true, expiresIn: 86_400, accessTokenFor: jwt });
  // The user's workouts, which tests may add to or replace: Suunto's list answers
  // `{error, payload, metadata}`, by `since`/`until` (epoch ms of the start), paged by `limit` and `offset`.
  const withWorkouts = Object.assign(mock, { workouts: [created.workout] as Record<string, unknown>[] });
  mock.route("GET", /^\/v2\/workouts$/, (req) => {
    if (req.headers.get("ocp-apim-subscription-key") !== SUBSCRIPTION_KEY) return Response.json({ statusCode: 401, message: "Access denied due to missing subscription key." }, { status: 401 });
    const q = new URL(req.url).searchParams;
    const since = Number(q.get("since") ?? 0);
    const until = Number(q.get("until") ?? Number.MAX_SAFE_INTEGER);
    const offset = Number(q.get("offset") ?? "0");
    const limit = Number(q.get("limit") ?? "50");
    const inRange = withWorkouts.workouts.filter((w) => Number(w.startTime) >= since && Number(w.startTime) < until);
    return Response.json({ error: null, payload: inRange.slice(offset, offset + limit), metadata: {} });
  });
  return withWorkouts;
}

export const suuntoSignedHeaders = (secret: string, body: string): Record<string, string> => ({
  "content-type": "application/json",
  "x-hmac-sha256-signature": createHmac("sha256", secret).update(body).digest("hex"),
});
