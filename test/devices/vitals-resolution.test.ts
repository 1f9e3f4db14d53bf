// Vitals over long windows: hourly and daily resolution, the one-source fast path and the
// per-hour source choice when two devices overlap (their samples written straight to the
// time series, as ingest does after its transaction).
import { describe, expect, it } from "vitest";
import { recordSamples, type Sample } from "../../src/features/devices/store/time-series";
import { createTenant } from "../support/tenants";
import { createPatient, linkDevice } from "./support";

const HOUR = 3_600_000;

describe("vitals resolution", () => {
  it("answers daily points for a long window, counting one source per hour", async () => {
    const t = await createTenant();
    const patient = await createPatient(t);
    const watch = await linkDevice(t, patient, { name: "Watch", platform: "sports_watch" });
    const ring = await linkDevice(t, patient, { name: "Ring" });
    const start = Math.floor(Date.now() / HOUR) * HOUR - 100 * 24 * HOUR;
    const samples: Sample[] = [];
    for (let h = 0; h < 100 * 24; h++) samples.push({ patientId: patient, metric: "heart_rate", t: start + h * HOUR + 60_000, deviceId: watch, value: 60 });
    await recordSamples(t.ctx.d1, t.orgId, samples);
    type V = { resolution: string; summary: { count: number; average: number }; data_points: { count?: number; device: { id: string } }[] };
    const one = (await (await t.fetch(`/api/v1/patients/${patient}/vitals?metric=heart_rate&days=200`)).json()) as V;
    expect(one).toMatchObject({ resolution: "day", summary: { count: 2400, average: 60 } });
    expect(one.data_points.length).toBeGreaterThanOrEqual(100);
    expect(one.data_points.length).toBeLessThanOrEqual(101);
    const raw = (await (await t.fetch(`/api/v1/patients/${patient}/vitals?metric=heart_rate&days=60`)).json()) as V;
    expect(raw).toMatchObject({ resolution: "raw", summary: { count: 1440 } });
    expect(raw.data_points).toHaveLength(1440);

    // The ring reports the last 10 days twice an hour: those hours count the ring, the rest the watch.
    const overlap: Sample[] = [];
    for (let h = 90 * 24; h < 100 * 24; h++) for (const m of [2, 3]) overlap.push({ patientId: patient, metric: "heart_rate", t: start + h * HOUR + m * 60_000, deviceId: ring, value: 90 });
    await recordSamples(t.ctx.d1, t.orgId, overlap);
    const two = (await (await t.fetch(`/api/v1/patients/${patient}/vitals?metric=heart_rate&days=200`)).json()) as V;
    expect(two.summary.count).toBe(2400 - 240 + 480);
    expect(two.summary.average).toBeCloseTo((2160 * 60 + 480 * 90) / 2640, 2);
    // The last 10 days at full resolution: only the ring's samples, the watch's in those hours left out.
    const recent = (await (await t.fetch(`/api/v1/patients/${patient}/vitals?metric=heart_rate&days=10`)).json()) as V;
    expect(recent).toMatchObject({ resolution: "raw", summary: { count: 480, average: 90 } });
    expect(recent.data_points.every((p) => p.device.id === ring)).toBe(true);
  });
});
