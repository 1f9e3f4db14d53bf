// Google Health subscriber management end to end: an administrator stores the org's service
// account key (encrypted, never returned) and the endpoint secret; PUT registers the org's
// subscriber at Google with a service-account token minted by the JWT bearer grant (RS256,
// WebCrypto) and Google verifies the org's webhook endpoint against the service itself (201 with
// the secret, 401 without); a second PUT patches it; GET reports Google's state; DELETE removes it.
// Refusals: a key Google does not accept → 400, verification failing → 422, a plain-HTTP endpoint
// → 400, nothing configured → 400/404; another org never sees or removes this org's subscriber.
// With `subscription_policy: MANUAL`, Fitbit's semantics: a subscription per user, made on link
// and removed on unlink.
import { beforeAll, describe, expect, it } from "vitest";
import { devicePlatformServices } from "../../src/features/devices/platform-services";
import { forgetWebhookCredentials } from "../../src/features/devices/platforms/webhooks/credential-cache";
import { guardedFetch } from "../../src/platform/outbound/fetch";
import { outboundPolicyOf } from "../../src/platform/outbound/policy";
import { useDevicePlatformServices } from "../support/service-profile";
import { createTenant, type Tenant } from "../support/tenants";
import { GOOGLE_ORIGIN, googleHealthMock } from "./mocks/google-health";
import { addGoogleSubscribers } from "./mocks/google-subscribers";
import { mockNetwork } from "./mocks/vendor-mock";
import { linkDevice, postWebhook } from "./support";

const KIND = "activity_tracker";
const PROJECT = "cdis-health-test";
const EMAIL = "subscribers@cdis-health-test.iam.gserviceaccount.com";
const TOKEN_URL = `${GOOGLE_ORIGIN}/token`;
const mock = googleHealthMock();
const google = addGoogleSubscribers(mock, TOKEN_URL);

async function rsaKey(): Promise<{ pem: string; publicKey: CryptoKey }> {
  const pair = (await crypto.subtle.generateKey({ name: "RSASSA-PKCS1-v1_5", modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: "SHA-256" }, true, ["sign", "verify"])) as CryptoKeyPair;
  const der = new Uint8Array((await crypto.subtle.exportKey("pkcs8", pair.privateKey)) as ArrayBuffer);
  const b64 = btoa(String.fromCharCode(...der)).replace(/(.{64})/g, "$1\n");
  return { pem: `-----BEGIN PRIVATE KEY-----\n${b64}\n-----END PRIVATE KEY-----\n`, publicKey: pair.publicKey };
}

const keyFile = (pem: string, email = EMAIL) => JSON.stringify({ type: "service_account", project_id: PROJECT, private_key_id: "8c1f0e", private_key: pem, client_email: email, token_uri: "https://oauth2.googleapis.com/token" });
const httpsEndpoint = (orgId: string) => `https://cdis.example/api/v1/webhooks/devices/${KIND}/${orgId}`;

async function integrate(t: Tenant, credentials: Record<string, string>, settings: Record<string, string> = { webhook_url: httpsEndpoint(t.orgId) }) {
  const res = await t.fetch("/api/v1/device-integrations", {
    method: "POST",
    json: { platform: KIND, name: "Google Health", credentials: { client_id: "google-client.apps.googleusercontent.com", client_secret: "google-secret", ...credentials }, settings: { authorize_url: `${GOOGLE_ORIGIN}/o/oauth2/v2/auth`, token_url: TOKEN_URL, revoke_url: `${GOOGLE_ORIGIN}/revoke`, api_base_url: GOOGLE_ORIGIN, ...settings } },
  });
  expect(res.status, await res.clone().text()).toBe(201);
  forgetWebhookCredentials();
  return res;
}

const subscriber = (t: Tenant, method = "GET") => t.fetch(`/api/v1/device-platforms/${KIND}/subscriber`, { method });
const errorOf = async (res: Response) => ((await res.json()) as { error: { code: string; message: string; status: number } }).error;

let a: Tenant;
let pem: string;

beforeAll(async () => {
  useDevicePlatformServices({ ...devicePlatformServices, fetch: (e) => guardedFetch({ policy: outboundPolicyOf(e), fetch: mockNetwork(mock) }) });
  // Google's verification POSTs reach this service's webhook endpoint (the public URL's path).
  google.verifyEndpoint = async (uri, init) => {
    const [, , , , , kind = "", orgId = ""] = new URL(uri).pathname.split("/");
    return postWebhook(kind, orgId, String(init.body), init.headers as Record<string, string>);
  };
  const key = await rsaKey();
  pem = key.pem;
  google.accounts.set(EMAIL, key.publicKey);
  google.projects.set(EMAIL, PROJECT);
  a = await createTenant();
  const created = await integrate(a, { service_account_key: keyFile(pem), webhook_authorization: "Bearer sub-secret-a" });
  // The key and the secret are stored, never returned.
  const shown = await created.text();
  expect(shown).not.toContain("PRIVATE KEY");
  expect(shown).not.toContain("sub-secret-a");
});

describe("Google Health subscriber management", () => {
  it("GET before registering is 404 SUBSCRIBER_NOT_FOUND", async () => {
    const res = await subscriber(a);
    expect(res.status, await res.clone().text()).toBe(404);
    expect((await errorOf(res)).code).toBe("SUBSCRIBER_NOT_FOUND");
  });

  it("PUT mints a service-account token, creates the subscriber, and Google verifies the org's endpoint against this service", async () => {
    const before = google.verifications.length;
    const res = await subscriber(a, "PUT");
    expect(res.status, await res.clone().text()).toBe(200);
    const body = (await res.json()) as Record<string, unknown>;
    expect(body).toMatchObject({ created: true, state: "ACTIVE", endpoint_uri: httpsEndpoint(a.orgId), secret_set: true, data_types: ["altitude", "distance", "floors", "sleep", "steps", "weight"] });
    expect(String(body.name)).toMatch(new RegExp(`^projects/${PROJECT}/subscribers/org-[0-9a-f]{32}$`));
    expect(google.verifications.slice(before).map((v) => [v.withAuthorization, v.status])).toEqual([
      [true, 201],
      [false, 401],
    ]);
    const create = google.calls.find((c) => c.method === "POST");
    expect(create?.query).toMatch(/^\?subscriberId=org-[0-9a-f]{32}$/);
    expect(JSON.stringify(body)).not.toContain("sub-secret-a");
  });

  it("a second PUT updates the same subscriber (PATCH with its update mask) and GET reports Google's state", async () => {
    const res = await subscriber(a, "PUT");
    expect(res.status, await res.clone().text()).toBe(200);
    expect(await res.json()).toMatchObject({ created: false, state: "ACTIVE" });
    expect(google.calls.filter((c) => c.method === "PATCH").map((c) => decodeURIComponent(c.query))).toEqual(["?updateMask=endpointUri,subscriberConfigs,endpointAuthorization"]);
    expect(google.subscribers.size).toBe(1);
    const got = await subscriber(a);
    expect(got.status).toBe(200);
    expect(await got.json()).toMatchObject({ state: "ACTIVE", endpoint_uri: httpsEndpoint(a.orgId), secret_set: true });
  });

  it("another org with the same project never sees or removes this org's subscriber", async () => {
    const b = await createTenant();
    expect((await errorOf(await subscriber(b))).code).toBe("PLATFORM_NOT_CONFIGURED");
    await integrate(b, { service_account_key: keyFile(pem), webhook_authorization: "Bearer sub-secret-b" });
    expect((await errorOf(await subscriber(b))).code).toBe("SUBSCRIBER_NOT_FOUND");
    expect((await subscriber(b, "DELETE")).status).toBe(404);
    expect((await subscriber(a)).status).toBe(200);
  });

  it("a key Google refuses is 400 PLATFORM_CREDENTIALS_REJECTED; a missing key or secret is 400 naming the field", async () => {
    const forged = await rsaKey(); // same account name, another key: the JWT signature fails at Google
    const c = await createTenant();
    await integrate(c, { service_account_key: keyFile(forged.pem), webhook_authorization: "Bearer x" });
    const res = await subscriber(c, "PUT");
    expect(res.status).toBe(400);
    expect(await errorOf(res)).toMatchObject({ code: "PLATFORM_CREDENTIALS_REJECTED", message: expect.stringContaining("Invalid JWT Signature") });
    const d = await createTenant();
    await integrate(d, { webhook_authorization: "Bearer x" });
    const missing = await subscriber(d, "PUT");
    expect(missing.status).toBe(400);
    expect(JSON.stringify(await errorOf(missing))).toContain("credentials.service_account_key");
  });

  it("an endpoint that fails Google's verification is 422; a plain-HTTP endpoint is 400 before Google is asked", async () => {
    const e = await createTenant();
    // Its webhook_url points at org A's endpoint, which does not know e's secret: both verification POSTs get 401.
    await integrate(e, { service_account_key: keyFile(pem), webhook_authorization: "Bearer sub-secret-e" }, { webhook_url: httpsEndpoint(a.orgId) });
    const res = await subscriber(e, "PUT");
    expect(res.status, await res.clone().text()).toBe(422);
    expect(await errorOf(res)).toMatchObject({ code: "PLATFORM_REJECTED", message: expect.stringContaining("FAILED_PRECONDITION") });
    const f = await createTenant();
    await integrate(f, { service_account_key: keyFile(pem), webhook_authorization: "Bearer y" }, {});
    const plain = await subscriber(f, "PUT");
    expect(plain.status).toBe(400);
    expect(JSON.stringify(await errorOf(plain))).toContain("not HTTPS");
  });

  it("platforms without a subscriber answer 404 SUBSCRIBER_NOT_SUPPORTED", async () => {
    const res = await a.fetch("/api/v1/device-platforms/recovery_strap/subscriber");
    expect(res.status).toBe(404);
    expect((await errorOf(res)).code).toBe("SUBSCRIBER_NOT_SUPPORTED");
  });

  it("MANUAL policy: linking a user subscribes them (Fitbit's per-user subscriptions), unlinking removes it", async () => {
    const m = await createTenant();
    await integrate(m, { service_account_key: keyFile(pem), webhook_authorization: "Bearer sub-secret-m" }, { webhook_url: httpsEndpoint(m.orgId), subscription_policy: "MANUAL" });
    const put = await subscriber(m, "PUT");
    expect(put.status, await put.clone().text()).toBe(200);
    const created = [...google.subscribers.values()].find((s) => s.endpointUri === httpsEndpoint(m.orgId));
    expect(created?.subscriberConfigs).toEqual([{ dataTypes: ["altitude", "distance", "floors", "sleep", "steps", "weight"], subscriptionCreatePolicy: "MANUAL" }]);
    const patient = ((await (await m.fetch(`/fhir/r4/${m.orgId}/Patient`, { method: "POST", json: { resourceType: "Patient" } })).json()) as { id: string }).id;
    const device = ((await (await m.fetch(`/api/v1/patients/${patient}/devices`, { method: "POST", json: { platform: KIND, name: "Pixel Watch" } })).json()) as { device_id: string }).device_id;
    const user = { id: "manual-user-1" };
    const linked = await linkDevice(m, KIND, mock, user, { patientId: patient, deviceId: device });
    expect(linked.response.status, await linked.response.clone().text()).toBe(200);
    const subscription = [...google.subscriptions.values()].find((s) => s.user === `users/${user.id}`);
    expect(subscription).toMatchObject({ name: expect.stringMatching(new RegExp(`^${created?.name}/subscriptions/u-[0-9a-f]{32}$`)), dataTypes: ["altitude", "distance", "floors", "sleep", "steps", "weight"].map((t) => `users/${user.id}/dataTypes/${t}`) });
    expect((await m.fetch(`/api/v1/device-platforms/links/${device}`, { method: "DELETE" })).status).toBe(200);
    expect([...google.subscriptions.values()].some((s) => s.user === `users/${user.id}`)).toBe(false);
    // An unknown policy is refused before Google is asked.
    const n = await createTenant();
    await integrate(n, { service_account_key: keyFile(pem), webhook_authorization: "Bearer z" }, { webhook_url: httpsEndpoint(n.orgId), subscription_policy: "SOMETIMES" });
    const bad = await subscriber(n, "PUT");
    expect(bad.status).toBe(400);
    expect(JSON.stringify(await errorOf(bad))).toContain("settings.subscription_policy");
  });

  it("DELETE removes it at Google; then GET and DELETE are 404", async () => {
    const before = google.subscribers.size;
    expect((await subscriber(a, "DELETE")).status).toBe(204);
    expect(google.subscribers.size).toBe(before - 1);
    expect((await subscriber(a)).status).toBe(404);
    expect((await subscriber(a, "DELETE")).status).toBe(404);
  });
});
