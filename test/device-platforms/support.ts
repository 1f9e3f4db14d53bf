// Wiring for the wearable platform tests: the device core's seams (credentials per org and
// kind, link status, ingest) as in-memory fakes, vendor mocks behind the real outbound guard,
// and helpers to link a device through the real OAuth endpoints and wait for the queue.
import { devicePlatformServices } from "../../src/features/devices/platform-services";
import { env } from "cloudflare:workers";
import type { PlatformCredentials } from "../../src/features/devices/platform-adapter";
import type { Reading } from "../../src/features/devices/reading";
import { forgetWebhookCredentials } from "../../src/features/devices/platforms/webhooks/credential-cache";
import { guardedFetch } from "../../src/platform/outbound/fetch";
import { outboundPolicyOf } from "../../src/platform/outbound/policy";
import { deviceEventsDelivered } from "../support/queues";
import { useDevicePlatformServices } from "../support/service-profile";
import { call, createTenant, type Tenant } from "../support/tenants";
import type { MockUser, VendorMock } from "./mocks/vendor-mock";

export interface Ingested {
  orgId: string;
  kind: string;
  readings: readonly Reading[];
  deleted: readonly { deviceId: string; sourceRecordId: string }[];
}

export interface PlatformWorld {
  credentials: Map<string, PlatformCredentials>;
  ingested: Ingested[];
  statuses: { orgId: string; deviceId: string; status: string; reason?: string }[];
  readings(orgId: string): Reading[];
}

/** Installs the fakes; `network` is the vendors' cloud (mocks), reached through the outbound guard. */
export function installWorld(network: typeof fetch): PlatformWorld {
  const world: PlatformWorld = {
    credentials: new Map(),
    ingested: [],
    statuses: [],
    readings: (orgId) => world.ingested.filter((i) => i.orgId === orgId).flatMap((i) => i.readings),
  };
  useDevicePlatformServices({
    // The companion apps' seams stay the device core's; the vendor-facing ones are the fakes below.
    ...devicePlatformServices,
    credentialsFor: async (data, kind) => world.credentials.get(`${data.orgId}/${kind}`),
    keepCredentials: async (data, kind, kept) => {
      const current = world.credentials.get(`${data.orgId}/${kind}`);
      if (current) world.credentials.set(`${data.orgId}/${kind}`, { ...current, extra: { ...current.extra, ...kept } });
    },
    linkStatus: async (data, deviceId, status, reason) => {
      world.statuses.push({ orgId: data.orgId, deviceId, status, reason });
    },
    ingest: async (data, kind, readings, deleted) => {
      world.ingested.push({ orgId: data.orgId, kind, readings, deleted });
      return readings.map(() => ({ duplicate: false }));
    },
    fetch: (e) => guardedFetch({ policy: outboundPolicyOf(e), fetch: network }),
  });
  return world;
}

/**
 * The device core as the Worker wires it, only the vendors' cloud a mock: a tenant whose device
 * integration for `kind` holds `integration`, and a patient with a device of that platform
 * (not linked yet).
 */
export async function wiredTenant(network: typeof fetch, kind: string, integration: { credentials: Record<string, string>; settings: Record<string, string> }, deviceName: string) {
  useDevicePlatformServices({ ...devicePlatformServices, fetch: (e) => guardedFetch({ policy: outboundPolicyOf(e), fetch: network }) });
  const t = await createTenant();
  const created = await t.fetch("/api/v1/device-integrations", { method: "POST", json: { platform: kind, name: deviceName, ...integration } });
  if (created.status !== 201) throw new Error(`integration: ${created.status} ${await created.text()}`);
  const patient = await t.fetch(`/fhir/r4/${t.orgId}/Patient`, { method: "POST", json: { resourceType: "Patient", name: [{ family: deviceName }] } });
  const patientId = ((await patient.json()) as { id: string }).id;
  const link = await t.fetch(`/api/v1/patients/${patientId}/devices`, { method: "POST", json: { platform: kind, name: deviceName } });
  if (link.status !== 201) throw new Error(`device: ${link.status} ${await link.text()}`);
  return { t, patientId, deviceId: ((await link.json()) as { device_id: string }).device_id };
}

/** Sets (or replaces) an org's platform credentials; the webhook path's per-isolate cache is dropped with it. */
export function configure(world: PlatformWorld, orgId: string, kind: string, credentials: PlatformCredentials): void {
  world.credentials.set(`${orgId}/${kind}`, credentials);
  forgetWebhookCredentials();
}

export function unconfigure(world: PlatformWorld, orgId: string, kind: string): void {
  world.credentials.delete(`${orgId}/${kind}`);
  forgetWebhookCredentials();
}

/** Links `deviceId` of `patientId` to the vendor user through the real endpoints; the callback's response. */
export async function linkDevice(t: Tenant, kind: string, mock: VendorMock, user: MockUser, ids = { patientId: "pat-1", deviceId: "dev-1" }) {
  const started = await t.fetch(`/api/v1/device-platforms/${kind}/authorizations`, { method: "POST", json: { patient_id: ids.patientId, device_id: ids.deviceId } });
  if (started.status !== 201) throw new Error(`authorize: ${started.status} ${await started.text()}`);
  const { authorization_url } = (await started.json()) as { authorization_url: string };
  const consent = mock.consent(user, authorization_url);
  const callback = new URL(consent.redirectUri);
  callback.searchParams.set("code", consent.code);
  callback.searchParams.set("state", consent.state);
  return { authorizationUrl: authorization_url, consent, response: await call(`${callback.pathname}${callback.search}`) };
}

export interface EventView {
  id: string;
  status: string;
  readings: number;
  updated: number;
  deleted: number;
  rejected: number;
  rejections: { record: string; metric: string; reason: string }[];
  attempts: number;
  replays: number;
  error: string | null;
}

export async function webhookEvents(t: Tenant): Promise<EventView[]> {
  const res = await t.fetch("/api/v1/device-platforms/webhook-events?limit=100");
  return ((await res.json()) as { events: EventView[] }).events;
}

/** Waits until the queue consumer has finished with event `id` (processed, no_readings or dead). */
export async function settled(t: Tenant, id: string, timeoutMs = 15_000): Promise<EventView> {
  // Whatever was queued before it has been consumed first: a burst queued earlier in the file is no
  // longer a wait the deadline has to cover. The deadline is for retries (vendor trouble) only.
  await deviceEventsDelivered();
  const until = Date.now() + timeoutMs;
  for (;;) {
    const event = (await webhookEvents(t)).find((e) => e.id === id);
    if (event && ["processed", "no_readings", "dead"].includes(event.status)) return event;
    if (Date.now() > until) throw new Error(`event ${id} not settled: ${JSON.stringify(event)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const replaysSeen = async (t: Tenant) => (await webhookEvents(t)).reduce((n, e) => n + e.replays, 0);

/**
 * Posts an already delivered body again (a vendor's replay): acknowledged as queued, then dropped by
 * the consumer, which counts it on the first delivery's row; resolves once the count shows it.
 */
export async function replay(t: Tenant, kind: string, body: string, headers: Record<string, string>): Promise<void> {
  const before = await replaysSeen(t);
  const res = await postWebhook(kind, t.orgId, body, headers);
  if (res.status !== 200) throw new Error(`replay answered ${res.status}: ${await res.text()}`);
  const ack = (await res.json()) as { status: string; event_id: string };
  if (ack.status !== "queued") throw new Error(`replay acknowledged as ${ack.status}`);
  const until = Date.now() + 15_000;
  while ((await replaysSeen(t)) === before) {
    if (Date.now() > until) throw new Error("the replay was not counted");
    await new Promise((r) => setTimeout(r, 100));
  }
  if ((await webhookEvents(t)).some((e) => e.id === ack.event_id)) throw new Error("the replay was recorded as a new delivery");
}

export const postWebhook = (kind: string, orgId: string, body: string, headers: Record<string, string>) =>
  call(`/api/v1/webhooks/devices/${kind}/${orgId}`, { method: "POST", body, headers });

export { env };

/** Posts a webhook that must be acknowledged (200) and waits for the consumer to finish with it. */
export async function deliver(t: Tenant, kind: string, body: string, headers: Record<string, string>): Promise<EventView> {
  const res = await postWebhook(kind, t.orgId, body, headers);
  if (res.status !== 200) throw new Error(`webhook answered ${res.status}: ${await res.text()}`);
  return settled(t, ((await res.json()) as { event_id: string }).event_id);
}
