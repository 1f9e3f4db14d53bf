// Oura webhook subscriptions are renewed by the cron before they expire: once an hour the
// service lists the app's subscriptions with the org's Oura client credentials and renews those
// expiring within a week; other minutes and orgs without Oura call nothing.
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { devicePlatformServices } from "../../src/features/devices/platform-services";
import { useDevicePlatformServices } from "../support/service-profile";
import { guardedFetch } from "../../src/platform/outbound/fetch";
import { outboundPolicyOf } from "../../src/platform/outbound/policy";
import { runScheduledWork, SUBSCRIPTION_RENEWAL_MINUTE } from "../../src/main/scheduled";
import { createTenant, type Tenant } from "../support/tenants";
import { OURA_ORIGIN, ouraMock, ouraSubscriptionApi } from "./mocks/oura";
import { mockNetwork } from "./mocks/vendor-mock";

const CLIENT = "oura-renew-client";
const SECRET = "oura-renew-secret";
const days = (n: number) => new Date(Date.now() + n * 86_400_000).toISOString();
const subscriptions = [
  { id: "sub-soon", callback_url: "https://example.org/hook", event_type: "create", data_type: "daily_sleep", expiration_time: days(2) },
  { id: "sub-later", callback_url: "https://example.org/hook", event_type: "create", data_type: "sleep", expiration_time: days(60) },
];
const api = ouraSubscriptionApi(CLIENT, SECRET, subscriptions, mockNetwork(ouraMock(CLIENT, SECRET)));

let t: Tenant;

beforeAll(async () => {
  useDevicePlatformServices({ ...devicePlatformServices, fetch: (e) => guardedFetch({ policy: outboundPolicyOf(e), fetch: api.fetch }) });
  t = await createTenant();
  await createTenant(); // an org without Oura: never asked about
  const res = await t.fetch("/api/v1/device-integrations", {
    method: "POST",
    json: { platform: "smart_ring", name: "Oura", credentials: { client_id: CLIENT, client_secret: SECRET }, settings: { api_base_url: OURA_ORIGIN } },
  });
  expect(res.status).toBe(201);
});

const at = (minute: number) => {
  const d = new Date();
  d.setUTCMinutes(minute, 0, 0);
  return d;
};

describe("Oura subscription renewal", () => {
  it("does nothing outside the hourly renewal minute", async () => {
    await runScheduledWork(env, at((SUBSCRIPTION_RENEWAL_MINUTE + 1) % 60));
    expect(api.renewed).toEqual([]);
  });

  it("renews, at the renewal minute, the subscriptions expiring within a week and leaves the others", async () => {
    await runScheduledWork(env, at(SUBSCRIPTION_RENEWAL_MINUTE));
    expect(api.renewed).toEqual(["sub-soon"]);
    expect(Date.parse(subscriptions[0]!.expiration_time)).toBeGreaterThan(Date.now() + 80 * 86_400_000);
    // Renewed once: the next hour finds nothing due.
    await runScheduledWork(env, at(SUBSCRIPTION_RENEWAL_MINUTE));
    expect(api.renewed).toEqual(["sub-soon"]);
  });
});
