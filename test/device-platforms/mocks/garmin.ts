// Garmin Health API as documented (reference 1.2): OAuth 2.0 PKCE token endpoint (form body
// credentials, rotating refresh tokens, 24 h access), user id, deregistration, backfill that
// answers 202 once per window and type and 409 after, ping callback URLs, and a push sender
// that sends the `garmin-client-id` header (Garmin signs nothing).
import dailies from "../../fixtures/wearables/garmin-dailies.json";
import { type MockUser, VendorMock } from "./vendor-mock";

export const GARMIN_ORIGIN = "http://127.0.0.1:7103";

export function garminMock(clientId = "garmin-client", clientSecret = "garmin-secret") {
  const mock = Object.assign(
    new VendorMock({ origin: GARMIN_ORIGIN, tokenPath: "/di-oauth2-service/oauth/token", clientId, clientSecret, clientAuth: "post", rotate: true, expiresIn: 86_400, pkce: true }),
    { backfills: new Set<string>(), deregistered: 0 },
  );
  mock
    .route("GET", /^\/wellness-api\/rest\/user\/id$/, (_req, user: MockUser) => Response.json({ userId: user.id }))
    .route("DELETE", /^\/wellness-api\/rest\/user\/registration$/, () => {
      mock.deregistered++;
      return new Response(null, { status: 204 });
    })
    .route("GET", /^\/wellness-api\/rest\/backfill\/(\w+)$/, (req, user, m) => {
      const q = new URL(req.url).searchParams;
      const key = `${user.id}/${m[1]}/${q.get("summaryStartTimeInSeconds")}/${q.get("summaryEndTimeInSeconds")}`;
      if (mock.backfills.has(key)) return Response.json({ errorMessage: "Duplicate backfill" }, { status: 409 });
      mock.backfills.add(key);
      return new Response(null, { status: 202 });
    })
    // A ping's callback: the summaries of the window, for the token's user.
    .route("GET", /^\/wellness-api\/rest\/dailies$/, (req, user) =>
      new URL(req.url).searchParams.get("token") ? Response.json(dailies.dailies.map((d) => ({ ...d, userId: user.id }))) : Response.json({ error: "token missing" }, { status: 400 }),
    );
  return mock;
}

export const garminPushHeaders = (clientId: string): Record<string, string> => ({ "content-type": "application/json", "garmin-client-id": clientId });
