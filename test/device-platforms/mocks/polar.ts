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
