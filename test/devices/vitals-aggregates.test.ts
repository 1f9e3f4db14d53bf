// A vendor's aggregate at the same instant as a sample (Garmin's daily summary: the day's average
// heart rate and highest/lowest body battery stamped at the day's start, where the first heart-rate
// sample is): both stay, as Observations and in the time series, and the vitals answer the samples
// as data_points and the aggregates beside them, per statistic (docs/devices.md, "Vitals").
import { describe, expect, it } from "vitest";
import { mapGarmin } from "../../src/features/devices/platforms/garmin/mapping";
import type { Reading } from "../../src/features/devices/reading";
import { createTenant, type Tenant } from "../support/tenants";
import { createPatient, linkDevice, postReadings } from "./support";

type Points = { timestamp: string; value: number; device: { id: string } }[];
type Vitals = {
  data_points: Points;
  summary: { count: number; average: number | null };
  aggregates: { statistic: string; resolution: string; data_points: Points; summary: { count: number } }[];
};
type Obs = { id: string; meta: { versionId: string }; method?: { coding: { code: string }[] }; effectiveDateTime?: string; effectivePeriod?: { start: string } };

// The day started three hours ago, on the hour (the vitals window of one day holds it).
const start = Math.floor(Date.now() / 3_600_000) * 3_600 - 3 * 3_600;
const daily = (averageHeartRate: number) => ({
  summaryId: "x-daily-1",
  startTimeInSeconds: start,
  startTimeOffsetInSeconds: 0,
  durationInSeconds: 86_400,
  steps: 4200,
  averageHeartRateInBeatsPerMinute: averageHeartRate,
  bodyBatteryHighestValue: 90,
  bodyBatteryLowestValue: 30,
  timeOffsetHeartRateSamples: { "0": 58, "3600": 61 },
});

/** The mapped readings in the ingest API's shape. */
const asApi = (readings: Reading[]) =>
  readings.map((r) => ({
    patient_id: r.patientId,
    device_id: r.deviceId,
    metric: r.metric,
    ...(r.value !== undefined ? { value: r.value } : {}),
    unit: r.unit,
    time: r.time,
    platform: r.platform,
    source_record_id: r.sourceRecordId,
    ...(r.attributes ? { attributes: r.attributes } : {}),
  }));

const vitals = async (t: Tenant, patient: string, metric: string) => (await (await t.fetch(`/api/v1/patients/${patient}/vitals?metric=${metric}&days=1`)).json()) as Vitals;
const values = (points: Points) => points.map((p) => [p.timestamp, p.value]);
const dayStart = new Date(start * 1000).toISOString();

async function setup() {
  const t = await createTenant();
  const patient = await createPatient(t);
  const device = await linkDevice(t, patient, { name: "Forerunner", platform: "sports_watch" });
  const send = (averageHeartRate: number) => postReadings(t, asApi(mapGarmin({ patientId: patient, deviceId: device }, "dailies", daily(averageHeartRate))));
  return { t, patient, device, send };
}

describe("a vendor's aggregate and a sample at the same instant", () => {
  it("both stay: the sample among the data_points, the day's average in aggregates, neither mixed into the other", async () => {
    const { t, patient, device, send } = await setup();
    const first = await send(64);
    expect(first).toMatchObject({ created: 11, updated: 0, duplicates: 0, rejected: 0 });
    const stored = (await (await t.fetch(`/fhir/r4/${t.orgId}/Observation?subject=Patient/${patient}&code=8867-4&_count=50`)).json()) as { entry: { resource: Obs }[] };
    const heartRates = stored.entry.map((e) => e.resource);
    expect(heartRates).toHaveLength(3);
    const average = heartRates.find((o) => o.method)!;
    expect(average).toMatchObject({ method: { coding: [{ code: "average" }] }, effectivePeriod: { start: dayStart } });
    expect(heartRates.filter((o) => o.effectiveDateTime === dayStart)).toHaveLength(1);

    const hr = await vitals(t, patient, "heart_rate");
    expect(values(hr.data_points)).toEqual([
      [dayStart, 58],
      [new Date((start + 3600) * 1000).toISOString(), 61],
    ]);
    expect(hr.summary).toMatchObject({ count: 2, average: 59.5 });
    expect(hr.aggregates).toEqual([
      { statistic: "average", resolution: "raw", data_points: [{ timestamp: dayStart, value: 64, device: { id: device, name: "Forerunner" } }], summary: { min: 64, max: 64, average: 64, count: 1 } },
    ]);
    // The day's highest and lowest body battery share 00:00 too: each its own series, no samples.
    const battery = await vitals(t, patient, "body_battery");
    expect(battery.data_points).toEqual([]);
    expect(battery.aggregates.map((a) => [a.statistic, values(a.data_points)])).toEqual([
      ["minimum", [[dayStart, 30]]],
      ["maximum", [[dayStart, 90]]],
    ]);
    // A metric without aggregates answers an empty list.
    expect((await vitals(t, patient, "steps")).aggregates).toEqual([]);
  });

  it("a replay adds nothing; the vendor's changed average updates its Observation and only the aggregate series", async () => {
    const { t, patient, send } = await setup();
    await send(64);
    expect(await send(64)).toMatchObject({ created: 0, updated: 0, duplicates: 11 });
    const replayed = await vitals(t, patient, "heart_rate");
    expect(values(replayed.data_points).map(([, v]) => v)).toEqual([58, 61]);
    expect(replayed.aggregates[0]?.summary.count).toBe(1);

    const changed = await send(66);
    expect(changed).toMatchObject({ created: 0, updated: 1, duplicates: 10 });
    const updated = changed.results.find((r) => r.status === "updated")!;
    expect(((await (await t.fetch(`/fhir/r4/${t.orgId}/Observation/${updated.observation_id}`)).json()) as Obs).meta.versionId).toBe("2");
    const hr = await vitals(t, patient, "heart_rate");
    expect(values(hr.data_points)).toEqual([
      [dayStart, 58],
      [new Date((start + 3600) * 1000).toISOString(), 61],
    ]);
    expect(hr.aggregates.map((a) => [a.statistic, values(a.data_points)])).toEqual([["average", [[dayStart, 66]]]]);
  });

  it("another organization sees none of it", async () => {
    const { patient, send } = await setup();
    await send(64);
    const other = await createTenant();
    expect((await other.fetch(`/api/v1/patients/${patient}/vitals?metric=heart_rate&days=1`)).status).toBe(404);
  });
});
