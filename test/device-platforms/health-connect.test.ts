// Health Connect through the companion app: record batches in the Jetpack records' shapes,
// idempotent on clientRecordId + clientRecordVersion (a higher version is `updated`: its changed
// readings give their Observations new versions, those it no longer has become entered-in-error and
// leave the vitals; a lower or equal one is a duplicate), at most 30 days before the first grant,
// per-record reasons, tenancy.
import { beforeAll, describe, expect, it } from "vitest";
import { createTenant, type Tenant } from "../support/tenants";
import { codeOf, companionDevice, type CompanionDevice, observations, upload, wireDeviceCore } from "./companion-support";

let t: Tenant;
let other: Tenant;
let phone: CompanionDevice;

// One instant for the file: a clock tick between two calls made a 160-minute sleep 160.00002.
const now = Date.now();
const at = (minutesAgo: number) => new Date(now - minutesAgo * 60_000).toISOString();
const meta = (clientRecordId: string, clientRecordVersion = 1) => ({ id: crypto.randomUUID(), clientRecordId, clientRecordVersion, dataOrigin: { packageName: "com.sec.android.app.shealth" }, device: { manufacturer: "Samsung", model: "Galaxy Watch6", type: 1 }, recordingMethod: 2 });
const post = (records: unknown[], token = phone.token, orgId = t.orgId, granted_at?: string) => upload(orgId, "health-connect/records", token, { json: { records, ...(granted_at ? { granted_at } : {}) } });

type Answer = {
  results: { status: string; reason?: string; observation_ids?: string[]; errors?: { path: string; message: string }[] }[];
  created: number;
  updated: number;
  duplicates: number;
  rejected: number;
  skipped: number;
};

/** An Observation's versions as [versionId, value], oldest first. */
const history = async (id: string) =>
  ((await (await t.fetch(`/fhir/r4/${t.orgId}/Observation/${id}/_history`)).json()) as { entry: { resource: { meta: { versionId: string }; valueQuantity?: { value: number } } }[] }).entry
    .map((e) => [e.resource.meta.versionId, e.resource.valueQuantity?.value] as const)
    .sort((a, b) => Number(a[0]) - Number(b[0]));

beforeAll(async () => {
  wireDeviceCore();
  t = await createTenant();
  other = await createTenant();
  phone = await companionDevice(t, "android_health_app", "Galaxy");
});

describe("Health Connect records", () => {
  it("become Observations per record type, with reasons for what is not a reading", async () => {
    const id = crypto.randomUUID().slice(0, 8);
    const records = [
      { recordType: "HeartRateRecord", metadata: meta(`hr-${id}`), startTime: at(30), endTime: at(28), samples: [{ time: at(30), beatsPerMinute: 71 }, { time: at(29), beatsPerMinute: 74 }] },
      { recordType: "StepsRecord", metadata: meta(`steps-${id}`), startTime: at(120), endTime: at(60), count: 1840 },
      { recordType: "WeightRecord", metadata: meta(`w-${id}`), time: at(200), weight: { inKilograms: 71.4 } },
      { recordType: "BloodPressureRecord", metadata: meta(`bp-${id}`), time: at(90), systolic: { inMillimetersOfMercury: 131 }, diastolic: { inMillimetersOfMercury: 84 }, bodyPosition: 1, measurementLocation: 3 },
      { recordType: "OxygenSaturationRecord", metadata: meta(`o2-${id}`), time: at(95), percentage: { value: 96 } },
      { recordType: "SleepSessionRecord", metadata: meta(`sleep-${id}`), startTime: at(600), endTime: at(120), stages: [{ startTime: at(600), endTime: at(540), stage: 4 }, { startTime: at(540), endTime: at(480), stage: 5 }, { startTime: at(480), endTime: at(470), stage: 1 }, { startTime: at(470), endTime: at(440), stage: 6 }] },
      { recordType: "HydrationRecord", metadata: meta(`h2o-${id}`), startTime: at(50), endTime: at(49), volume: { inLiters: 0.3 } },
      { recordType: "WeightRecord", metadata: { clientRecordVersion: 1 }, time: at(10), weight: { inKilograms: 70 } },
      { recordType: "WeightRecord", metadata: meta(`w2-${id}`), weight: { inKilograms: 70 } },
    ];
    const res = await post(records);
    expect(res.status, await res.clone().text()).toBe(200);
    const answer = (await res.json()) as Answer;
    expect(answer.results.map((r) => r.status)).toEqual(["created", "created", "created", "created", "created", "created", "skipped", "rejected", "rejected"]);
    expect(answer.results[6]?.reason).toContain("HydrationRecord");
    expect(answer.results[7]?.errors?.[0]?.path).toBe("records[7].metadata.clientRecordId");
    expect(answer.results[8]?.errors?.[0]?.path).toBe("records[8].time");

    const obs = await observations(t, phone.patientId);
    const by = (code: string) => obs.filter((o) => codeOf(o) === code);
    expect(by("8867-4").map((o) => o.valueQuantity?.value).sort()).toEqual([71, 74]);
    expect(by("55423-8")[0]?.valueQuantity?.value).toBe(1840);
    expect(by("29463-7")[0]?.valueQuantity).toMatchObject({ value: 71.4, code: "kg" });
    expect(by("85354-9")[0]?.component?.map((c) => c.valueQuantity.value)).toEqual([131, 84]);
    expect(by("2708-6")[0]?.valueQuantity).toMatchObject({ value: 96, code: "%" });
    expect(by("93832-4")[0]?.valueQuantity?.value).toBe(150); // light 60 + deep 60 + REM 30; awake left out
    expect(by("93831-6")[0]?.valueQuantity?.value).toBe(60);
    expect(by("93829-0")[0]?.valueQuantity?.value).toBe(30);
  });

  it("accepts what the SDK allows: no device or a null one, constants by name, every accessor of a unit class, sleep stages by name", async () => {
    const p = await companionDevice(t, "android_health_app", "SDK shapes");
    const id = crypto.randomUUID().slice(0, 8);
    const m = (name: string, extra: Record<string, unknown> = {}) => ({ id: crypto.randomUUID(), clientRecordId: `${name}-${id}`, clientRecordVersion: 1, ...extra });
    const records = [
      // Metadata.device is nullable (manual entries), or absent; its fields are nullable too.
      { recordType: "WeightRecord", metadata: m("w-null", { device: null, recordingMethod: "RECORDING_METHOD_MANUAL_ENTRY" }), time: at(300), weight: { inPounds: 154 } },
      { recordType: "WeightRecord", metadata: m("w-absent"), time: at(299), weight: { inGrams: 70_500 } },
      { recordType: "StepsRecord", metadata: m("steps", { device: { manufacturer: null, model: "Pixel Watch 2", type: "TYPE_WATCH" }, recordingMethod: 2 }), startTime: at(240), endTime: at(230), count: 900 },
      { recordType: "BloodGlucoseRecord", metadata: m("glu"), time: at(220), level: { inMillimolesPerLiter: 5.5 } },
      { recordType: "DistanceRecord", metadata: m("dist"), startTime: at(210), endTime: at(200), distance: { inMiles: 1 } },
      { recordType: "DistanceRecord", metadata: m("dist-km"), startTime: at(199), endTime: at(190), distance: { inKilometers: 2.5 } },
      { recordType: "ActiveCaloriesBurnedRecord", metadata: m("kj"), startTime: at(180), endTime: at(170), energy: { inKilojoules: 418.4 } },
      { recordType: "ActiveCaloriesBurnedRecord", metadata: m("cal"), startTime: at(169), endTime: at(160), energy: { inCalories: 50_000 } },
      { recordType: "BodyTemperatureRecord", metadata: m("temp"), time: at(150), temperature: { inFahrenheit: 98.6 } },
      { recordType: "HeightRecord", metadata: m("height"), time: at(140), height: { inFeet: 6 } },
      {
        recordType: "SleepSessionRecord",
        metadata: m("sleep"),
        startTime: at(600),
        endTime: at(300),
        stages: [
          { startTime: at(600), endTime: at(540), stage: "STAGE_TYPE_LIGHT" },
          { startTime: at(540), endTime: at(480), stage: "STAGE_TYPE_DEEP" },
          { startTime: at(480), endTime: at(470), stage: "STAGE_TYPE_AWAKE" },
          { startTime: at(470), endTime: at(440), stage: "STAGE_TYPE_REM" },
          { startTime: at(440), endTime: at(430), stage: "STAGE_TYPE_SLEEPING_DEEP" },
        ],
      },
    ];
    const answer = (await (await post(records, p.token)).json()) as Answer;
    expect(answer.results.map((r) => r.status), JSON.stringify(answer.results)).toEqual(records.map(() => "created"));
    const obs = await observations(t, p.patientId);
    const values = (code: string) => obs.filter((o) => codeOf(o) === code).map((o) => [o.valueQuantity?.value, o.valueQuantity?.code]);
    expect(values("29463-7").sort()).toEqual([[69.85322498, "kg"], [70.5, "kg"]].sort());
    expect(values("55423-8")).toEqual([[900, "{steps}"]]);
    // 5.5 mmol/L at glucose's 180.156 g/mol (docs/devices.md).
    expect(values("2339-0")).toEqual([[99.0858, "mg/dL"]]);
    expect(values("distance").sort()).toEqual([[1609.344, "m"], [2500, "m"]].sort());
    expect(values("41981-2").map(([v]) => Math.round((v as number) * 1000) / 1000).sort((a, b) => a - b)).toEqual([50, 100]);
    expect(values("8310-5")).toEqual([[37, "Cel"]]);
    expect(values("8302-2")).toEqual([[182.88, "cm"]]);
    expect(values("93832-4")).toEqual([[160, "min"]]); // light 60 + deep 60 + REM 30 + deep 10; awake left out
    expect(values("93831-6")).toEqual([[70, "min"]]);
    expect(values("93830-8")).toEqual([[60, "min"]]);
    expect(values("93829-0")).toEqual([[30, "min"]]);
  });

  it("refuses what the SDK does not allow, naming the field, and stores nothing without a value", async () => {
    const p = await companionDevice(t, "android_health_app", "SDK refusals");
    const m = (extra: Record<string, unknown> = {}) => ({ id: crypto.randomUUID(), clientRecordId: crypto.randomUUID(), clientRecordVersion: 1, ...extra });
    const records = [
      { recordType: "WeightRecord", metadata: m({ device: { type: "TYPE_TOASTER" } }), time: at(50), weight: { inKilograms: 70 } },
      { recordType: "WeightRecord", metadata: m({ recordingMethod: "SOMETIMES" }), time: at(50), weight: { inKilograms: 70 } },
      { recordType: "WeightRecord", metadata: m(), time: at(50), weight: { inStones: 11 } },
      { recordType: "WeightRecord", metadata: m(), time: at(50) },
      { recordType: "BloodGlucoseRecord", metadata: m(), time: at(50), level: { inMillimolesPerLiter: "5.5" } },
      { recordType: "SleepSessionRecord", metadata: m(), startTime: at(300), endTime: at(200), stages: [{ startTime: at(300), endTime: at(250), stage: "STAGE_TYPE_NAP" }] },
      { recordType: "SleepSessionRecord", metadata: m(), startTime: at(300), endTime: at(200), stages: [{ startTime: at(300), stage: 5 }] },
      { recordType: "HeartRateRecord", metadata: m(), startTime: at(40), endTime: at(39), samples: [{ time: at(40) }] },
      { recordType: "BloodPressureRecord", metadata: m(), time: at(30), systolic: { inMillimetersOfMercury: 120 } },
    ];
    const answer = (await (await post(records, p.token)).json()) as Answer;
    expect(answer.results.map((r) => r.status)).toEqual(records.map(() => "rejected"));
    expect(answer.results.map((r) => r.errors?.[0]?.path)).toEqual([
      "records[0].metadata.device.type",
      "records[1].metadata.recordingMethod",
      "records[2].weight",
      "records[3].weight",
      "records[4].level.inMillimolesPerLiter",
      "records[5].stages[0].stage",
      "records[6].stages[0].endTime",
      "records[7].samples[0].beatsPerMinute",
      "records[8].diastolic",
    ]);
    expect(answer.results[0]?.errors?.[0]?.message).toContain("TYPE_WATCH");
    expect(answer.results[2]?.errors?.[0]?.message).toContain("inPounds");
    expect(answer.results[5]?.errors?.[0]?.message).toContain("STAGE_TYPE_DEEP");
    expect(await observations(t, p.patientId)).toEqual([]);
  });

  it("is idempotent on clientRecordId + clientRecordVersion: equal or lower is a duplicate, higher updates the Observation", async () => {
    const rid = `spo2-${crypto.randomUUID()}`;
    const v = (version: number, percent: number) => ({ recordType: "OxygenSaturationRecord", metadata: meta(rid, version), time: at(300), percentage: { value: percent } });
    expect(((await (await post([v(2, 91)])).json()) as Answer).created).toBe(1);
    expect(((await (await post([v(2, 91)])).json()) as Answer).results[0]?.status).toBe("duplicate");
    expect(((await (await post([v(1, 90)])).json()) as Answer).results[0]?.status).toBe("duplicate");
    const third = (await (await post([v(3, 93)])).json()) as Answer;
    expect(third).toMatchObject({ created: 0, updated: 1, duplicates: 0 });
    expect(third.results[0]?.status).toBe("updated");
    // The same version again changes nothing.
    expect(((await (await post([v(3, 93)])).json()) as Answer).results[0]?.status).toBe("duplicate");

    const stored = (await observations(t, phone.patientId)).filter((o) => codeOf(o) === "2708-6" && o.identifier?.[0]?.value.includes(rid));
    expect(stored.map((o) => [o.valueQuantity?.value, o.status])).toEqual([[93, "final"]]);
    expect(third.results[0]?.observation_ids).toEqual([stored[0]?.id]);
    expect(await history(stored[0]!.id)).toEqual([
      ["1", 91],
      ["2", 93],
    ]);
    const vitals = (await (await t.fetch(`/api/v1/patients/${phone.patientId}/vitals?metric=spo2&days=1`)).json()) as { data_points: { value: number }[] };
    expect(vitals.data_points.map((p) => p.value)).not.toContain(91);
    expect(vitals.data_points.map((p) => p.value)).toContain(93);
  });

  it("a higher version that drops a sample and changes another: the changed one gets a new version, the dropped one is entered-in-error", async () => {
    const rid = `hr-${crypto.randomUUID()}`;
    const [t1, t2, t3] = [at(80), at(79), at(78)];
    const v = (version: number, samples: { time: string; beatsPerMinute: number }[]) => ({ recordType: "HeartRateRecord", metadata: meta(rid, version), startTime: t1, endTime: t3, samples });
    const first = (await (await post([v(1, [{ time: t1, beatsPerMinute: 101 }, { time: t2, beatsPerMinute: 102 }, { time: t3, beatsPerMinute: 103 }])])).json()) as Answer;
    expect(first.results[0]?.status).toBe("created");
    const second = (await (await post([v(2, [{ time: t1, beatsPerMinute: 101 }, { time: t3, beatsPerMinute: 113 }])])).json()) as Answer;
    expect(second).toMatchObject({ created: 0, updated: 1 });
    const mine = (await observations(t, phone.patientId)).filter((o) => o.identifier?.[0]?.value.includes(rid));
    const byValue = new Map(mine.map((o) => [o.valueQuantity?.value, o]));
    expect(mine.map((o) => [o.valueQuantity?.value, o.status]).sort()).toEqual([
      [101, "final"],
      [102, "entered-in-error"],
      [113, "final"],
    ]);
    expect(second.results[0]?.observation_ids?.sort()).toEqual([byValue.get(101)!.id, byValue.get(113)!.id].sort());
    expect((await history(byValue.get(101)!.id)).length).toBe(1);
    expect(await history(byValue.get(113)!.id)).toEqual([
      ["1", 103],
      ["2", 113],
    ]);
    const hr = (await (await t.fetch(`/api/v1/patients/${phone.patientId}/vitals?metric=heart_rate&days=1`)).json()) as { data_points: { timestamp: string; value: number }[] };
    const inRecord = hr.data_points.filter((p) => [t1, t2, t3].map((x) => new Date(x).toISOString()).includes(p.timestamp)).map((p) => p.value);
    expect(inRecord.sort()).toEqual([101, 113]);
  });

  it("refuses records older than 30 days before the first grant, per record", async () => {
    const fresh = await companionDevice(t, "android_health_app", "Pixel");
    const grant = at(10 * 24 * 60);
    const records = [
      { recordType: "StepsRecord", metadata: meta(`old-${crypto.randomUUID()}`), startTime: at(45 * 24 * 60), endTime: at(45 * 24 * 60 - 60), count: 500 },
      { recordType: "StepsRecord", metadata: meta(`ok-${crypto.randomUUID()}`), startTime: at(35 * 24 * 60), endTime: at(35 * 24 * 60 - 60), count: 600 },
    ];
    const answer = (await (await post(records, fresh.token, t.orgId, grant)).json()) as Answer;
    expect(answer.results.map((r) => r.status)).toEqual(["rejected", "created"]);
    expect(answer.results[0]?.errors?.[0]?.message).toContain("30 days before the first Health Connect grant");
    // The first grant is fixed by the first upload: a later, different granted_at does not move it.
    const later = (await (await post([{ ...records[0], metadata: meta(`old2-${crypto.randomUUID()}`) }], fresh.token, t.orgId, at(60))).json()) as Answer;
    expect(later.results[0]?.status).toBe("rejected");
  });

  it("keeps tenants apart and refuses bad bodies with 4xx", async () => {
    const rec = { recordType: "WeightRecord", metadata: meta(`x-${crypto.randomUUID()}`), time: at(5), weight: { inKilograms: 70 } };
    expect((await post([rec], phone.token, other.orgId)).status).toBe(401);
    expect((await post([rec], "cdt_wrong")).status).toBe(401);
    const apple = await companionDevice(t, "ios_health_app", "iPhone");
    expect((await post([rec], apple.token)).status).toBe(403);
    expect((await upload(t.orgId, "health-connect/records", phone.token, { json: { records: [] } })).status).toBe(400);
    expect((await upload(t.orgId, "health-connect/records", phone.token, { json: { records: [rec], granted_at: "yesterday" } })).status).toBe(400);
  });
});
