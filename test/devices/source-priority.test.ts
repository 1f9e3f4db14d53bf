// Source priority per organization: which platforms' devices count first where two devices report
// a metric in the same hour of the vitals query. Admin only, validated, audited, per org.
import { describe, expect, it } from "vitest";
import { recordSamples, type Sample } from "../../src/features/devices/store/time-series";
import { eventually } from "../support/eventually";
import { authedFetch, createKey, createTenant, type Tenant } from "../support/tenants";
import { createPatient, linkDevice } from "./support";

const HOUR = 3_600_000;
type Vitals = { summary: { count: number; average: number }; data_points: { value: number; device: { id: string } }[] };

const put = (t: Tenant, priorities: unknown) => t.fetch("/api/v1/devices/source-priority", { method: "PUT", json: { priorities } });
const vitals = async (t: Tenant, patient: string, metric = "heart_rate") => (await (await t.fetch(`/api/v1/patients/${patient}/vitals?metric=${metric}&days=2`)).json()) as Vitals;

/**
 * A ring (smart_ring) and a watch (sports_watch) of one patient: the watch reports 3 samples an hour
 * for 10 hours, the ring 2 samples an hour in the last 4 of them (and steps the same way).
 */
async function twoSources(t: Tenant) {
  const patient = await createPatient(t);
  const watch = await linkDevice(t, patient, { name: "Watch", platform: "sports_watch" });
  const ring = await linkDevice(t, patient, { name: "Ring", platform: "smart_ring" });
  const start = Math.floor(Date.now() / HOUR) * HOUR - 12 * HOUR;
  const samples: Sample[] = [];
  for (const metric of ["heart_rate", "steps"]) {
    for (let h = 0; h < 10; h++) {
      for (const m of [1, 2, 3]) samples.push({ patientId: patient, metric, t: start + h * HOUR + m * 60_000, deviceId: watch, value: 60 });
      if (h >= 6) for (const m of [4, 5]) samples.push({ patientId: patient, metric, t: start + h * HOUR + m * 60_000, deviceId: ring, value: 90 });
    }
  }
  await recordSamples(t.ctx.d1, t.orgId, samples);
  return { patient, watch, ring };
}

describe("device source priority", () => {
  it("is empty until set, and an admin sets and reads it back", async () => {
    const t = await createTenant();
    const empty = await t.fetch("/api/v1/devices/source-priority");
    expect(await empty.json()).toEqual({ priorities: {}, updated_at: null, updated_by: null });
    const set = await put(t, { heart_rate: ["smart_ring", "sports_watch"], default: ["mqtt"] });
    expect(set.status).toBe(200);
    const body = (await (await t.fetch("/api/v1/devices/source-priority")).json()) as { priorities: unknown; updated_by: string };
    expect(body).toMatchObject({ priorities: { heart_rate: ["smart_ring", "sports_watch"], default: ["mqtt"] }, updated_by: t.keyId });
  });

  it("refuses bad input with the field: unknown metric, repeated or malformed platform, empty list", async () => {
    const t = await createTenant();
    const cases: [unknown, string][] = [
      [{ mood: ["smart_ring"] }, "priorities.mood"],
      [{ steps: ["smart_ring", "smart_ring"] }, "priorities.steps"],
      [{ steps: ["Smart Ring!"] }, "priorities.steps.0"],
      [{ steps: [] }, "priorities.steps"],
      ["smart_ring", "priorities"],
    ];
    for (const [priorities, path] of cases) {
      const res = await put(t, priorities);
      expect(res.status, JSON.stringify(priorities)).toBe(400);
      const error = ((await res.json()) as { error: { code: string; details?: { path: string }[] } }).error;
      expect(error.details?.map((d) => d.path), JSON.stringify(priorities)).toContain(path);
    }
    expect((await t.fetch("/api/v1/devices/source-priority", { method: "PUT", json: { priorities: {}, extra: 1 } })).status).toBe(400);
  });

  it("is admin only: clinician and service keys get 403", async () => {
    const t = await createTenant();
    for (const role of ["clinician", "service"] as const) {
      const { key } = await createKey(t.orgId, role);
      const as = authedFetch(t.orgId, key);
      expect((await as("/api/v1/devices/source-priority", { method: "PUT", json: { priorities: {} } })).status, role).toBe(403);
      expect((await as("/api/v1/devices/source-priority")).status, role).toBe(403);
    }
  });

  it("decides which device counts in an hour two report; other hours and metrics keep their rule", async () => {
    const t = await createTenant();
    const { patient, watch, ring } = await twoSources(t);
    // No priority: the watch has more samples in every hour, so the ring never counts.
    const before = await vitals(t, patient);
    expect(before.summary).toMatchObject({ count: 30, average: 60 });
    expect(before.data_points.every((p) => p.device.id === watch)).toBe(true);

    expect((await put(t, { heart_rate: ["smart_ring"] })).status).toBe(200);
    const after = await vitals(t, patient);
    // Six hours of the watch (18 samples) and four of the ring (8): one source per hour, nothing counted twice.
    expect(after.summary.count).toBe(18 + 8);
    expect(after.summary.average).toBeCloseTo((18 * 60 + 8 * 90) / 26, 3);
    expect(after.data_points.filter((p) => p.device.id === ring)).toHaveLength(8);
    // Steps have no list of their own and no default: still the watch.
    expect((await vitals(t, patient, "steps")).summary).toMatchObject({ count: 30, average: 60 });

    // The default list applies to metrics without one of their own.
    expect((await put(t, { heart_rate: ["sports_watch"], default: ["smart_ring"] })).status).toBe(200);
    expect((await vitals(t, patient)).summary).toMatchObject({ count: 30, average: 60 });
    expect((await vitals(t, patient, "steps")).summary.count).toBe(26);
  });

  it("is per organization: another org's priority changes nothing here, and neither sees the other's", async () => {
    const a = await createTenant();
    const b = await createTenant();
    const { patient } = await twoSources(a);
    expect((await put(b, { heart_rate: ["smart_ring"] })).status).toBe(200);
    expect((await vitals(a, patient)).summary).toMatchObject({ count: 30, average: 60 });
    expect(((await (await a.fetch("/api/v1/devices/source-priority")).json()) as { priorities: unknown }).priorities).toEqual({});
    // B cannot read A's patient's vitals either.
    expect((await b.fetch(`/api/v1/patients/${patient}/vitals?metric=heart_rate&days=2`)).status).toBe(404);
  });

  it("records the change in the management audit trail", async () => {
    const t = await createTenant();
    await put(t, { steps: ["smart_ring"] });
    const events = await eventually(
      async () => ((await (await t.fetch("/api/audit?action=device.source_priority_update")).json()) as { audit_events: { outcome: string; entity: { type: { code: string } }[] }[] }).audit_events,
      (list) => list.length > 0,
    );
    expect(events[0]).toMatchObject({ outcome: "0", entity: [{ type: { code: "device_source_priority" } }] });
  });
});
