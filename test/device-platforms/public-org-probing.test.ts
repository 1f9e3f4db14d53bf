// The public routes that name their organization in the path (wearable webhooks, OAuth
// callbacks, companion uploads) answer an organization id that does not exist exactly as they
// answer a bad credential for one that does, so nobody can probe which ids exist; and an
// organization that has not configured a platform answers its webhooks the same way.
import { beforeAll, describe, expect, it } from "vitest";
import { call, createTenant, type Tenant } from "../support/tenants";
import { ouraMock, ouraSignedHeaders } from "./mocks/oura";
import { mockNetwork } from "./mocks/vendor-mock";
import { configure, installWorld, type PlatformWorld } from "./support";

const OURA = "smart_ring";
const SECRET = "oura-secret";

let world: PlatformWorld;
let configured: Tenant;
let bare: Tenant;
const nobody = () => `no-such-org-${crypto.randomUUID()}`;

beforeAll(async () => {
  world = installWorld(mockNetwork(ouraMock("oura-client", SECRET)));
  configured = await createTenant();
  bare = await createTenant();
  configure(world, configured.orgId, OURA, { clientId: "oura-client", clientSecret: SECRET, extra: { webhook_verification_token: "verify-me" } });
});

/** What a client learns from an answer: its status and, for an error, its code and message. */
async function answer(res: Response) {
  const text = await res.text();
  let error: unknown = text;
  try {
    const { code, message, status } = (JSON.parse(text) as { error: { code: string; message: string; status: number } }).error;
    error = { code, message, status };
  } catch {}
  return { status: res.status, error };
}

const notification = JSON.stringify({ event_type: "create", data_type: "daily_sleep", object_id: "x", user_id: "u", event_time: new Date().toISOString() });

describe("public routes naming an organization", () => {
  it("a webhook with a bad signature answers alike for an existing org, one without the platform, and an unknown id", async () => {
    const post = (orgId: string) => call(`/api/v1/webhooks/devices/${OURA}/${orgId}`, { method: "POST", body: notification, headers: ouraSignedHeaders("not-the-secret", notification) });
    const known = await answer(await post(configured.orgId));
    expect(known).toEqual({ status: 401, error: { code: "SIGNATURE_INVALID", message: "Webhook signature not accepted", status: 401 } });
    expect(await answer(await post(bare.orgId))).toEqual(known);
    expect(await answer(await post(nobody()))).toEqual(known);
    // An unsigned delivery too.
    const unsigned = (orgId: string) => call(`/api/v1/webhooks/devices/${OURA}/${orgId}`, { method: "POST", body: notification, headers: { "content-type": "application/json" } });
    expect(await answer(await unsigned(configured.orgId))).toEqual(known);
    expect(await answer(await unsigned(nobody()))).toEqual(known);
  });

  it("a GET challenge with the wrong token answers alike; an unknown platform kind is 404 whatever the org", async () => {
    const challenge = (orgId: string) => call(`/api/v1/webhooks/devices/${OURA}/${orgId}?verification_token=wrong&challenge=c-1`);
    const known = await answer(await challenge(configured.orgId));
    expect(known.status).toBe(401);
    expect(await answer(await challenge(nobody()))).toEqual(known);
    expect(await answer(await challenge(bare.orgId))).toEqual(known);
    // The right token still gets its challenge back.
    const ok = await call(`/api/v1/webhooks/devices/${OURA}/${configured.orgId}?verification_token=verify-me&challenge=c-1`);
    expect(await ok.json()).toEqual({ challenge: "c-1" });
    const unknownKind = (orgId: string) => call(`/api/v1/webhooks/devices/no_such_platform/${orgId}`, { method: "POST", body: notification });
    const kind404 = await answer(await unknownKind(configured.orgId));
    expect(kind404.status).toBe(404);
    expect(await answer(await unknownKind(nobody()))).toEqual(kind404);
  });

  it("Polar's unsigned PING is answered alike for any organization id", async () => {
    const ping = JSON.stringify({ event: "PING", timestamp: new Date().toISOString() });
    const send = async (orgId: string) => {
      const res = await call(`/api/v1/webhooks/devices/training_platform/${orgId}`, { method: "POST", body: ping, headers: { "content-type": "application/json" } });
      return { status: res.status, body: await res.json() };
    };
    const known = await send(configured.orgId);
    expect(known).toEqual({ status: 200, body: { status: "pong" } });
    expect(await send(nobody())).toEqual(known);
  });

  it("an OAuth callback with an unknown state answers alike for an unknown org id", async () => {
    const callback = (orgId: string, query: string) => call(`/api/v1/device-platforms/${OURA}/${orgId}/oauth/callback?${query}`);
    for (const query of ["state=made-up&code=c", "code=c"]) {
      const known = await answer(await callback(configured.orgId, query));
      expect(known.status).toBe(400);
      expect(await answer(await callback(nobody(), query))).toEqual(known);
    }
  });

  it("a companion upload with a bad token answers alike for an unknown org id", async () => {
    const upload = (orgId: string, authorization?: string) =>
      call(`/api/v1/companion/${orgId}/apple-health/samples`, { method: "POST", body: JSON.stringify({ samples: [{}] }), headers: { "content-type": "application/json", ...(authorization ? { authorization } : {}) } });
    for (const authorization of ["Bearer cdt_not-a-real-token", undefined]) {
      const known = await answer(await upload(configured.orgId, authorization));
      expect(known).toMatchObject({ status: 401, error: { code: "UPLOAD_TOKEN_INVALID" } });
      expect(await answer(await upload(nobody(), authorization))).toEqual(known);
    }
  });
});
