// The wearables wired to the device core as the Worker wires them (src/features/devices/platform-services.ts):
// the org's Oura credentials come from its device integration, the OAuth link marks the device
// link Active, and a signed webhook becomes Observations of the linked Device through the device
// core's ingest, shown on the patient's timeline; a replay adds no Observation. Only the vendor's
// cloud is a mock.
import { beforeAll, describe, expect, it } from "vitest";
import type { Tenant } from "../support/tenants";
import { OURA_ORIGIN, ouraMock, ouraSignedHeaders } from "./mocks/oura";
import { mockNetwork } from "./mocks/vendor-mock";
import { observations } from "./device-core";
import { linkDevice, postWebhook, replay, settled, wiredTenant } from "./support";

const KIND = "smart_ring";
const SECRET = "oura-wired-secret";
const mock = ouraMock("oura-wired-client", SECRET);
const user = { id: "oura-wired-user" };

let t: Tenant;
let patientId: string;
let deviceId: string;

beforeAll(async () => {
  ({ t, patientId, deviceId } = await wiredTenant(
    mockNetwork(mock),
    KIND,
    {
      credentials: { client_id: "oura-wired-client", client_secret: SECRET },
      settings: { authorize_url: `${OURA_ORIGIN}/oauth/authorize`, token_url: `${OURA_ORIGIN}/oauth/token`, revoke_url: `${OURA_ORIGIN}/oauth/revoke`, api_base_url: OURA_ORIGIN },
    },
    "Oura ring",
  ));
});

const statuses = () => observations(t, patientId);

describe("wearables on the device core", () => {
  it("links through OAuth with the integration's credentials, then a signed webhook becomes Observations of the device", async () => {
    const { response } = await linkDevice(t, KIND, mock, user, { patientId, deviceId });
    expect(response.status, await response.clone().text()).toBe(200);
    const body = JSON.stringify({ event_type: "create", data_type: "daily_sleep", object_id: "8f9a5221-639e-4a85-81cb-4065ef23f979", user_id: user.id, event_time: new Date().toISOString() });
    const res = await postWebhook(KIND, t.orgId, body, ouraSignedHeaders(SECRET, body));
    expect(res.status, await res.clone().text()).toBe(200);
    expect(await settled(t, ((await res.json()) as { event_id: string }).event_id)).toMatchObject({ status: "processed" });
    const stored = await statuses();
    expect(stored.length).toBeGreaterThan(0);
    expect(stored.every((o) => o.device?.reference === `Device/${deviceId}`)).toBe(true);
    const timeline = (await (await t.fetch(`/api/v1/patients/${patientId}/timeline`)).json()) as { events: { type: string }[] };
    expect(timeline.events.map((e) => e.type)).toContain("Device reading");
    // The same delivery again: acknowledged, dropped by the consumer, no new Observation.
    await replay(t, KIND, body, ouraSignedHeaders(SECRET, body));
    expect((await statuses()).length).toBe(stored.length);
  });

  it("refuses a webhook signed with another secret and stores nothing", async () => {
    const before = (await statuses()).length;
    const body = JSON.stringify({ event_type: "create", data_type: "daily_sleep", object_id: "another", user_id: user.id, event_time: new Date().toISOString() });
    expect((await postWebhook(KIND, t.orgId, body, ouraSignedHeaders("not-the-secret", body))).status).toBe(401);
    expect((await statuses()).length).toBe(before);
  });

  it("marks a record's Observations entered-in-error when the vendor deletes it, and ingests nothing for the delete", async () => {
    const objectId = "8f9a5221-639e-4a85-81cb-4065ef23f979";
    const mine = (list: Awaited<ReturnType<typeof statuses>>) => list.filter((o) => o.identifier?.[0]?.value.includes(`|${objectId}|`));
    const all = await statuses();
    const before = mine(all);
    expect(before.length).toBeGreaterThan(0);
    expect(before.every((o) => o.status === "final")).toBe(true);
    const body = JSON.stringify({ event_type: "delete", data_type: "daily_sleep", object_id: objectId, user_id: user.id, event_time: new Date().toISOString() });
    const res = await postWebhook(KIND, t.orgId, body, ouraSignedHeaders(SECRET, body));
    expect(res.status, await res.clone().text()).toBe(200);
    expect(await settled(t, ((await res.json()) as { event_id: string }).event_id)).toMatchObject({ status: "processed", readings: 0, deleted: 1 });
    const after = await statuses();
    expect(mine(after).map((o) => o.status)).toEqual(before.map(() => "entered-in-error"));
    // Not deleted: the count is unchanged, only the status moved.
    expect(after.length).toBe(all.length);
  });

  it("syncs the OAuth-linked device on demand with the link's tokens, refreshing them on a 401, with the sync log complete", async () => {
    mock.expireAccessTokens();
    const refreshesBefore = mock.refreshCalls;
    const res = await t.fetch(`/api/v1/devices/${deviceId}/sync`, { method: "POST", json: { data_types: ["daily_sleep"], from_date: "2024-01-01", to_date: "2024-01-31" } });
    expect(res.status, await res.clone().text()).toBe(202);
    const { sync_id } = (await res.json()) as { sync_id: string };
    let log: { state: string; data_types: { data_type: string; pages_fetched: number; observations_created: number; duplicates_skipped: number; errors: unknown[] }[] } | undefined;
    for (let i = 0; i < 150; i++) {
      log = (await (await t.fetch(`/api/v1/sync-logs/${sync_id}`)).json()) as typeof log;
      if (log?.state !== "queued" && log?.state !== "running") break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(log?.state, JSON.stringify(log)).toBe("completed");
    expect(log?.data_types[0]).toMatchObject({ data_type: "daily_sleep", pages_fetched: 2, errors: [] });
    expect((log?.data_types[0]?.observations_created ?? 0) + (log?.data_types[0]?.duplicates_skipped ?? 0)).toBe(2);
    expect(mock.refreshCalls).toBe(refreshesBefore + 1);
    expect((await statuses()).some((o) => o.identifier?.[0]?.value.includes("|ds-2|"))).toBe(true);
  });
});
