// Manual sync end to end: an adapter defined here pages a stand-in vendor on loopback
// (test/setup/device-vendor-server.ts) through the outbound guard; the DeviceSync object runs
// it on alarms, retries a 429 after Retry-After, fails one data type and finishes the others.
import { beforeAll, describe, expect, it } from "vitest";
import { useTestVendor } from "./sync.test-adapter";
import { authedFetch, createKey, createTenant, type Tenant } from "../support/tenants";
import { createPatient, linkDevice } from "./support";

beforeAll(useTestVendor);


interface Log {
  state: string;
  started_at: string | null;
  finished_at: string | null;
  data_types: { data_type: string; state: string; pages_fetched: number; readings_received: number; observations_created: number; duplicates_skipped: number; readings_rejected: number; rate_limited: number; errors: { reason: string }[] }[];
}

async function setUp(t: Tenant, user = "u1") {
  await t.fetch("/api/v1/device-integrations", { method: "POST", json: { platform: "test_vendor", name: "Vendor", credentials: { client_id: "c", client_secret: "s" } } });
  const patient = await createPatient(t);
  const device = await linkDevice(t, patient, { platform: "test_vendor", name: "Vendor watch", platform_user_id: user, tokens: { access_token: "patient-access-token" } });
  return { patient, device };
}

async function finished(t: Tenant, syncId: string): Promise<Log> {
  for (let i = 0; i < 150; i++) {
    const log = (await (await t.fetch(`/api/v1/sync-logs/${syncId}`)).json()) as Log;
    if (!["queued", "running"].includes(log.state)) return log;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error("sync did not finish");
}

describe("manual device sync", () => {
  it("pages every data type, retries a 429, fails the broken type, reports progress; a second sync finds duplicates", async () => {
    const t = await createTenant();
    const { patient, device } = await setUp(t);
    const res = await t.fetch(`/api/v1/devices/${device}/sync`, { method: "POST", json: { days: 2 } });
    expect(res.status).toBe(202);
    const { sync_id } = (await res.json()) as { sync_id: string };
    const log = await finished(t, sync_id);
    expect(log.state).toBe("partially_failed");
    expect(log.started_at).not.toBeNull();
    expect(log.finished_at).not.toBeNull();
    const byType = Object.fromEntries(log.data_types.map((d) => [d.data_type, d]));
    expect(byType.heart_rate).toMatchObject({ state: "completed", pages_fetched: 2, readings_received: 7, observations_created: 6, readings_rejected: 1 });
    expect(byType.heart_rate!.errors[0]!.reason).toContain("time.at");
    expect(byType.spo2).toMatchObject({ state: "completed", pages_fetched: 2, observations_created: 6, rate_limited: 1 });
    expect(byType.ecg).toMatchObject({ state: "failed", pages_fetched: 0 });
    expect(byType.ecg!.errors[0]!.reason).toContain("invalid: 400");
    const spo2 = (await (await t.fetch(`/api/v1/patients/${patient}/vitals?metric=spo2&days=3`)).json()) as { summary: { count: number; max: number } };
    expect(spo2.summary).toMatchObject({ count: 6, max: 96 });

    const again = (await (await t.fetch(`/api/v1/devices/${device}/sync`, { method: "POST", json: { days: 2, data_types: ["heart_rate"] } })).json()) as { sync_id: string };
    const second = await finished(t, again.sync_id);
    expect(second.state).toBe("completed");
    expect(second.data_types[0]).toMatchObject({ observations_created: 0, duplicates_skipped: 6 });
    const list = (await (await t.fetch(`/api/v1/devices/${device}/sync-logs`)).json()) as { sync_logs: { sync_id: string }[]; total_count: number };
    expect(list.sync_logs.map((l) => l.sync_id)).toEqual([again.sync_id, sync_id]);
    const devices = (await (await t.fetch(`/api/v1/patients/${patient}/devices`)).json()) as { devices: { last_sync_at: string | null }[] };
    expect(devices.devices[0]!.last_sync_at).not.toBeNull();
  });

  it("answers 400 with the field for bad ranges and unknown data types", async () => {
    const t = await createTenant();
    const { device } = await setUp(t, "u2");
    const field = async (body: unknown) => {
      const res = await t.fetch(`/api/v1/devices/${device}/sync`, { method: "POST", json: body });
      expect(res.status).toBe(400);
      return ((await res.json()) as { error: { details: { path: string }[] } }).error.details[0]!.path;
    };
    expect(await field({ from_date: "2026-01-10", to_date: "2026-01-01" })).toBe("to_date");
    expect(await field({ days: 90 })).toBe("days");
    expect(await field({ from_date: "2020-01-01" })).toBe("from_date");
    expect(await field({ data_types: ["heart_rate", "mood"] })).toBe("data_types[1]");
    expect(await field({ from_date: "soon" })).toBe("from_date");
  });

  it("lets admins and clinicians start a sync, not service keys; another org sees nothing", async () => {
    const t = await createTenant();
    const { device } = await setUp(t, "u3");
    const service = authedFetch(t.orgId, (await createKey(t.orgId, "service")).key);
    expect((await service(`/api/v1/devices/${device}/sync`, { method: "POST", json: { data_types: ["heart_rate"] } })).status).toBe(403);
    const clinician = authedFetch(t.orgId, (await createKey(t.orgId, "clinician")).key);
    const started = await clinician(`/api/v1/devices/${device}/sync`, { method: "POST", json: { data_types: ["heart_rate"] } });
    expect(started.status).toBe(202);
    const { sync_id } = (await started.json()) as { sync_id: string };
    await finished(t, sync_id);
    const other = await createTenant();
    expect((await other.fetch(`/api/v1/devices/${device}/sync`, { method: "POST", json: {} })).status).toBe(404);
    expect((await other.fetch(`/api/v1/sync-logs/${sync_id}`)).status).toBe(404);
    expect((await other.fetch(`/api/v1/devices/${device}/sync-logs`)).status).toBe(404);
  });
});
