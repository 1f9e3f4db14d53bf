// A reading's identity is its organization, platform, device link, source record id and metric:
// two patients' sources that use the same record id (every manual source may say "rec-1"; a
// vendor's ids are unique only within its user) each keep their own Observation, and no reading
// ever takes over another patient's. HTTP readings and the companion uploads here; MQTT in
// bridge/test/mqtt-e2e.test.ts, each vendor's webhooks and backfill in
// test/device-platforms/vendors-device-core.test.ts.
import { beforeAll, describe, expect, it } from "vitest";
import { companionDevice, upload, wireDeviceCore } from "../device-platforms/companion-support";
import { createTenant, type Tenant } from "../support/tenants";
import { createPatient, linkDevice, minutesAgo, postReadings, reading } from "./support";

type Obs = { id: string; subject: { reference: string }; device: { reference: string }; meta: { versionId: string }; valueQuantity?: { value: number }; identifier: { system: string; value: string }[] };

const observations = async (t: Tenant, patientId: string): Promise<Obs[]> =>
  ((await (await t.fetch(`/fhir/r4/${t.orgId}/Observation?subject=Patient/${patientId}&_count=200`)).json()) as { entry?: { resource: Obs }[] }).entry?.map((e) => e.resource) ?? [];

const vitals = async (t: Tenant, patientId: string, metric = "heart_rate") =>
  (await (await t.fetch(`/api/v1/patients/${patientId}/vitals?metric=${metric}&days=1`)).json()) as { summary: { count: number; min: number | null }; data_points: { value: number; device: { id: string } }[] };

/** What a patient's Observations are: id, version, subject and device (what an update must never move). */
const snapshot = (list: Obs[]) => list.map((o) => [o.id, o.meta.versionId, o.subject.reference, o.device.reference, o.valueQuantity?.value]).sort();

let t: Tenant;
beforeAll(async () => {
  wireDeviceCore();
  t = await createTenant();
});

describe("the same source record id from two patients' devices", () => {
  it("HTTP readings: the second patient's reading is created, the first patient's stays whole", async () => {
    const [p1, p2] = [await createPatient(t, "First"), await createPatient(t, "Second")];
    const [d1, d2] = [await linkDevice(t, p1, { platform: "manual", name: "Cuff 1" }), await linkDevice(t, p2, { platform: "manual", name: "Cuff 2" })];
    const at = minutesAgo(15);
    const first = await postReadings(t, [reading(p1, d1, { platform: "manual", source_record_id: "rec-1", value: 61, time: { at } })]);
    expect(first.results[0]).toMatchObject({ status: "created" });
    const before = snapshot(await observations(t, p1));

    const second = await postReadings(t, [reading(p2, d2, { platform: "manual", source_record_id: "rec-1", value: 99, time: { at } })]);
    expect(second.results[0]).toMatchObject({ status: "created" });
    expect(second.results[0]!.observation_id).not.toBe(first.results[0]!.observation_id);

    expect(snapshot(await observations(t, p1))).toEqual(before);
    expect((await vitals(t, p1)).data_points.map((p) => [p.value, p.device.id])).toEqual([[61, d1]]);
    const theirs = await observations(t, p2);
    expect(theirs.map((o) => [o.subject.reference, o.device.reference, o.valueQuantity?.value])).toEqual([[`Patient/${p2}`, `Device/${d2}`, 99]]);
    expect((await vitals(t, p2)).data_points.map((p) => [p.value, p.device.id])).toEqual([[99, d2]]);

    // Each one's redelivery meets its own Observation, with another value its own update.
    const again = await postReadings(t, [reading(p1, d1, { platform: "manual", source_record_id: "rec-1", value: 62, time: { at } }), reading(p2, d2, { platform: "manual", source_record_id: "rec-1", value: 99, time: { at } })]);
    expect(again.results.map((r) => [r.status, r.observation_id])).toEqual([
      ["updated", first.results[0]!.observation_id],
      ["duplicate", second.results[0]!.observation_id],
    ]);
    expect((await observations(t, p1)).map((o) => [o.subject.reference, o.valueQuantity?.value])).toEqual([[`Patient/${p1}`, 62]]);
    expect((await observations(t, p2)).map((o) => [o.subject.reference, o.valueQuantity?.value])).toEqual([[`Patient/${p2}`, 99]]);
  });

  it("a thousand readings of one patient stay its own when another patient's source repeats every id", async () => {
    const [p1, p2] = [await createPatient(t, "Many"), await createPatient(t, "Repeats")];
    const [d1, d2] = [await linkDevice(t, p1, { platform: "manual", name: "Monitor 1" }), await linkDevice(t, p2, { platform: "manual", name: "Monitor 2" })];
    const batch = (patient: string, device: string, value: number) =>
      Array.from({ length: 1000 }, (_, i) => reading(patient, device, { platform: "manual", source_record_id: `rec-${i}`, value, time: { at: new Date(Date.now() - (i + 1) * 60_000).toISOString() } }));
    expect((await postReadings(t, batch(p1, d1, 70))).created).toBe(1000);
    expect((await postReadings(t, batch(p2, d2, 120))).created).toBe(1000);
    expect((await vitals(t, p1)).summary).toMatchObject({ count: 1000, min: 70 });
    expect((await vitals(t, p2)).summary).toMatchObject({ count: 1000, min: 120 });
  });

  it("an Observation another patient holds under the reading's identifier is refused, never taken over", async () => {
    const [p1, p2] = [await createPatient(t, "Holder"), await createPatient(t, "Claimant")];
    const d2 = await linkDevice(t, p2, { platform: "manual", name: "Claimant's cuff" });
    // Written by hand (an import, a client) with the identifier p2's reading would carry.
    const planted = await t.fetch(`/fhir/r4/${t.orgId}/Observation`, {
      method: "POST",
      json: {
        resourceType: "Observation",
        status: "final",
        identifier: [{ system: "urn:cdis:device-reading", value: `manual|${d2}|rec-x|heart_rate` }],
        code: { coding: [{ system: "http://loinc.org", code: "8867-4" }] },
        subject: { reference: `Patient/${p1}` },
        effectiveDateTime: minutesAgo(5),
        valueQuantity: { value: 58, unit: "/min", system: "http://unitsofmeasure.org", code: "/min" },
      },
    });
    expect(planted.status).toBe(201);
    const held = (await planted.json()) as { id: string };
    const answer = await postReadings(t, [reading(p2, d2, { platform: "manual", source_record_id: "rec-x", value: 150 })]);
    expect(answer.results[0]).toMatchObject({ status: "rejected", errors: [{ path: "readings[0].sourceRecordId" }] });
    expect(answer.results[0]!.errors![0]!.message).toContain(`Observation/${held.id}`);
    const after = (await (await t.fetch(`/fhir/r4/${t.orgId}/Observation/${held.id}`)).json()) as Obs;
    expect([after.meta.versionId, after.subject.reference, after.valueQuantity?.value]).toEqual(["1", `Patient/${p1}`, 58]);
    expect((await vitals(t, p2)).summary.count).toBe(0);
  });
});

describe("companion uploads of two patients' phones with the same record ids", () => {
  const at = (minutesAgo: number) => new Date(Date.now() - minutesAgo * 60_000).toISOString();

  it("Health Connect: the same clientRecordId on two phones is two patients' records", async () => {
    const [a, b] = [await companionDevice(t, "android_health_app", "Phone A"), await companionDevice(t, "android_health_app", "Phone B")];
    const [start, end] = [at(20), at(19)];
    const record = (bpm: number) => ({
      recordType: "HeartRateRecord",
      metadata: { id: crypto.randomUUID(), clientRecordId: "shared-hr-1", clientRecordVersion: 1, device: { manufacturer: "Samsung", model: "Watch", type: 1 }, recordingMethod: 2 },
      startTime: start,
      endTime: end,
      samples: [{ time: start, beatsPerMinute: bpm }],
    });
    const post = (device: typeof a, bpm: number) => upload(t.orgId, "health-connect/records", device.token, { json: { records: [record(bpm)] } });
    expect(((await (await post(a, 64)).json()) as { created: number }).created).toBe(1);
    const before = snapshot(await observations(t, a.patientId));
    expect(((await (await post(b, 91)).json()) as { created: number }).created).toBe(1);
    expect(snapshot(await observations(t, a.patientId))).toEqual(before);
    expect((await vitals(t, a.patientId)).data_points.map((p) => p.value)).toEqual([64]);
    expect((await vitals(t, b.patientId)).data_points.map((p) => p.value)).toEqual([91]);
  });

  it("Apple Health: the same sample UUID from two iPhones is two patients' samples", async () => {
    const [a, b] = [await companionDevice(t, "ios_health_app", "iPhone A"), await companionDevice(t, "ios_health_app", "iPhone B")];
    const [uuid, when] = [crypto.randomUUID(), at(12)];
    const sample = (value: number) => ({ uuid, type: "HKQuantityTypeIdentifierHeartRate", value, unit: "count/min", startDate: when, endDate: when, sourceName: "Watch", device: "Apple Watch" });
    const post = (device: typeof a, value: number) => upload(t.orgId, "apple-health/samples", device.token, { json: { samples: [sample(value)] } });
    expect(((await (await post(a, 66)).json()) as { created: number }).created).toBe(1);
    const before = snapshot(await observations(t, a.patientId));
    expect(((await (await post(b, 88)).json()) as { created: number }).created).toBe(1);
    expect(snapshot(await observations(t, a.patientId))).toEqual(before);
    expect((await vitals(t, a.patientId)).data_points.map((p) => p.value)).toEqual([66]);
    expect((await vitals(t, b.patientId)).data_points.map((p) => p.value)).toEqual([88]);
  });
});
