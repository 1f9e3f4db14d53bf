// Apple Health through the companion app: upload tokens (issued by admin or clinician for the
// patient's device, hashed, revocable, bound to the org and device), JSON batches of HealthKit
// samples (fraction SpO2 → %, lb → kg, SDNN kept as SDNN, blood pressure from its correlation,
// idempotent on the sample UUID), and export.xml imports through R2 and the AppleHealthImport
// object, with progress in the sync log.
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { importStep, newImportState } from "../../src/features/devices/platforms/apple-health/export-import";
import EXPORT_XML from "../fixtures/wearables/apple-health/export.xml?raw";
import { createKey, authedFetch, call, createTenant, type Tenant } from "../support/tenants";
import { codeOf, companionDevice, type CompanionDevice, finishedSync, observations, upload, wireDeviceCore } from "./companion-support";

let t: Tenant;
let other: Tenant;
let phone: CompanionDevice;

// One instant for the file: a clock tick between two calls would stretch a sample's duration.
const now = Date.now();
const at = (minutesAgo: number) => new Date(now - minutesAgo * 60_000).toISOString();
const sample = (over: Record<string, unknown>) => ({ uuid: crypto.randomUUID(), startDate: at(30), endDate: at(30), sourceName: "Jane’s Apple Watch", device: "Apple Watch", ...over });

beforeAll(async () => {
  wireDeviceCore();
  t = await createTenant();
  other = await createTenant();
  phone = await companionDevice(t, "ios_health_app", "iPhone");
});

describe("upload tokens", () => {
  it("are issued to admins and clinicians for companion devices only, listed without the token, and revocable", async () => {
    const clinician = authedFetch(t.orgId, (await createKey(t.orgId, "clinician")).key);
    const issued = await clinician(`/api/v1/device-platforms/links/${phone.deviceId}/upload-tokens`, { method: "POST", json: {} });
    expect(issued.status).toBe(201);
    const body = (await issued.json()) as { token: string; id: string; upload_base_url: string };
    expect(body.token).toMatch(/^cdt_/);
    expect(body.upload_base_url).toContain(`/api/v1/companion/${t.orgId}`);

    const service = authedFetch(t.orgId, (await createKey(t.orgId, "service")).key);
    expect((await service(`/api/v1/device-platforms/links/${phone.deviceId}/upload-tokens`, { method: "POST", json: {} })).status).toBe(403);

    const list = (await (await t.fetch(`/api/v1/device-platforms/links/${phone.deviceId}/upload-tokens`)).json()) as { tokens: Record<string, unknown>[]; total_count: number };
    expect(list.total_count).toBe(2);
    expect(JSON.stringify(list)).not.toContain(body.token);

    const ringPatient = phone.patientId;
    const ring = (await (await t.fetch(`/api/v1/patients/${ringPatient}/devices`, { method: "POST", json: { platform: "smart_ring", name: "Ring" } })).json()) as { device_id: string };
    expect((await t.fetch(`/api/v1/device-platforms/links/${ring.device_id}/upload-tokens`, { method: "POST", json: {} })).status).toBe(400);

    expect((await t.fetch(`/api/v1/device-platforms/links/${phone.deviceId}/upload-tokens/${body.id}`, { method: "DELETE" })).status).toBe(204);
    expect((await upload(t.orgId, "apple-health/samples", body.token, { json: { samples: [sample({ type: "HKQuantityTypeIdentifierHeartRate", value: 70, unit: "count/min" })] } })).status).toBe(401);
    expect((await t.fetch(`/api/v1/device-platforms/links/${phone.deviceId}/upload-tokens/${body.id}`, { method: "DELETE" })).status).toBe(404);
  });

  it("never cross organizations: another org cannot issue, list or revoke for this device, and this device's token uploads nothing there", async () => {
    expect((await other.fetch(`/api/v1/device-platforms/links/${phone.deviceId}/upload-tokens`, { method: "POST", json: {} })).status).toBe(404);
    expect((await other.fetch(`/api/v1/device-platforms/links/${phone.deviceId}/upload-tokens`)).status).toBe(404);
    expect((await other.fetch(`/api/v1/device-platforms/links/${phone.deviceId}/upload-tokens/${phone.tokenId}`, { method: "DELETE" })).status).toBe(404);
    const res = await upload(other.orgId, "apple-health/samples", phone.token, { json: { samples: [sample({ type: "HKQuantityTypeIdentifierHeartRate", value: 70, unit: "count/min" })] } });
    expect(res.status).toBe(401);
  });

  it("refuses uploads without a token, with a wrong one, or for the other kind of companion app", async () => {
    const batch = { samples: [sample({ type: "HKQuantityTypeIdentifierHeartRate", value: 70, unit: "count/min" })] };
    expect((await upload(t.orgId, "apple-health/samples", undefined, { json: batch })).status).toBe(401);
    expect((await upload(t.orgId, "apple-health/samples", "cdt_not-a-token", { json: batch })).status).toBe(401);
    const android = await companionDevice(t, "android_health_app", "Pixel");
    const wrongKind = await upload(t.orgId, "apple-health/samples", android.token, { json: batch });
    expect(wrongKind.status).toBe(403);
  });
});

describe("HealthKit sample batches", () => {
  it("become Observations with HealthKit's meaning kept, per sample, and a re-sent batch adds nothing", async () => {
    const bp = crypto.randomUUID();
    const samples = [
      sample({ type: "HKQuantityTypeIdentifierHeartRate", value: 73, unit: "count/min" }),
      sample({ type: "HKQuantityTypeIdentifierOxygenSaturation", value: 0.97, unit: "%" }),
      sample({ type: "HKQuantityTypeIdentifierBodyMass", value: 154.3, unit: "lb" }),
      sample({ type: "HKQuantityTypeIdentifierHeartRateVariabilitySDNN", value: 48.2, unit: "ms" }),
      sample({ type: "HKCategoryTypeIdentifierSleepAnalysis", value: "HKCategoryValueSleepAnalysisAsleepREM", startDate: at(300), endDate: at(255) }),
      {
        uuid: bp,
        type: "HKCorrelationTypeIdentifierBloodPressure",
        startDate: at(20),
        endDate: at(20),
        objects: [
          { uuid: crypto.randomUUID(), type: "HKQuantityTypeIdentifierBloodPressureSystolic", value: 128, unit: "mmHg", startDate: at(20), endDate: at(20) },
          { uuid: crypto.randomUUID(), type: "HKQuantityTypeIdentifierBloodPressureDiastolic", value: 82, unit: "mmHg", startDate: at(20), endDate: at(20) },
        ],
      },
      sample({ type: "HKQuantityTypeIdentifierDietaryCaffeine", value: 95, unit: "mg" }),
      sample({ type: "HKQuantityTypeIdentifierHeartRate", value: 70, unit: "count/min", uuid: "not-a-uuid" }),
    ];
    const res = await upload(t.orgId, "apple-health/samples", phone.token, { json: { samples } });
    expect(res.status, await res.clone().text()).toBe(200);
    const answer = (await res.json()) as { results: { status: string; reason?: string; errors?: { path: string }[] }[]; created: number; skipped: number; rejected: number };
    expect(answer.results.map((r) => r.status)).toEqual(["created", "created", "created", "created", "created", "created", "skipped", "rejected"]);
    expect(answer.results[6]?.reason).toContain("DietaryCaffeine");
    expect(answer.results[7]?.errors?.[0]?.path).toBe("samples[7].uuid");

    const obs = await observations(t, phone.patientId);
    const by = (code: string) => obs.find((o) => codeOf(o) === code);
    expect(by("8867-4")?.valueQuantity).toMatchObject({ value: 73, code: "/min" });
    expect(by("2708-6")?.valueQuantity).toMatchObject({ value: 97, code: "%" });
    expect(by("29463-7")?.valueQuantity?.code).toBe("kg");
    expect(by("29463-7")?.valueQuantity?.value).toBeCloseTo(69.99, 2);
    expect(by("80404-7")?.valueQuantity).toMatchObject({ value: 48.2, code: "ms" });
    expect(obs.some((o) => o.code.coding.some((c) => c.code === "hrv-rmssd"))).toBe(false);
    expect(by("93829-0")?.valueQuantity).toMatchObject({ value: 45, code: "min" });
    expect(by("85354-9")?.component?.map((c) => c.valueQuantity.value)).toEqual([128, 82]);

    const vitals = (await (await t.fetch(`/api/v1/patients/${phone.patientId}/vitals?metric=heart_rate&days=1`)).json()) as { data_points: { value: number }[] };
    expect(vitals.data_points.map((p) => p.value)).toContain(73);
    const timeline = (await (await t.fetch(`/api/v1/patients/${phone.patientId}/timeline`)).json()) as { events: { type: string }[] };
    expect(timeline.events.some((e) => e.type === "Device reading")).toBe(true);

    const again = (await (await upload(t.orgId, "apple-health/samples", phone.token, { json: { samples } })).json()) as { created: number; duplicates: number };
    expect(again).toMatchObject({ created: 0, duplicates: 6 });
    expect((await observations(t, phone.patientId)).length).toBe(obs.length);
  });

  it("a sample re-sent under its UUID with another value is updated: a new version of its Observation, the new value in the vitals", async () => {
    const hr = { ...sample({}), type: "HKQuantityTypeIdentifierHeartRate", value: 66, unit: "count/min", startDate: at(40), endDate: at(40) };
    const send = async (s: typeof hr) =>
      (await (await upload(t.orgId, "apple-health/samples", phone.token, { json: { samples: [s] } })).json()) as {
        results: { status: string; observation_ids?: string[] }[];
        created: number;
        updated: number;
        duplicates: number;
      };
    const id = (await send(hr)).results[0]?.observation_ids?.[0];
    const changed = await send({ ...hr, value: 69 });
    expect(changed).toMatchObject({ created: 0, updated: 1, duplicates: 0 });
    expect(changed.results[0]).toEqual({ index: 0, status: "updated", observation_ids: [id] });
    expect(await send({ ...hr, value: 69 })).toMatchObject({ created: 0, updated: 0, duplicates: 1 });
    const versions = ((await (await t.fetch(`/fhir/r4/${t.orgId}/Observation/${id}/_history`)).json()) as { entry: { resource: { valueQuantity: { value: number } } }[] }).entry;
    expect(versions.map((e) => e.resource.valueQuantity.value).sort()).toEqual([66, 69]);
    const vitals = (await (await t.fetch(`/api/v1/patients/${phone.patientId}/vitals?metric=heart_rate&days=1`)).json()) as { data_points: { timestamp: string; value: number }[] };
    expect(vitals.data_points.filter((p) => p.timestamp === new Date(hr.startDate).toISOString()).map((p) => p.value)).toEqual([69]);
  });

  it("answers 400 for a body that is not a batch, never 500", async () => {
    expect((await upload(t.orgId, "apple-health/samples", phone.token, { json: { samples: [] } })).status).toBe(400);
    expect((await upload(t.orgId, "apple-health/samples", phone.token, { body: "{not json", headers: { "content-type": "application/json" } })).status).toBe(400);
  });
});

describe("export.xml import", () => {
  it("streams the upload into storage, imports it with progress in the sync log, and a second import adds nothing", async () => {
    const device = await companionDevice(t, "ios_health_app", "Export");
    const put = () => upload(t.orgId, "apple-health/export", device.token, { method: "PUT", body: EXPORT_XML, headers: { "content-type": "application/xml" } });
    const res = await put();
    expect(res.status, await res.clone().text()).toBe(202);
    const { sync_id } = (await res.json()) as { sync_id: string };
    const log = await finishedSync(t, sync_id);
    expect(log.state).toBe("completed");
    const progress = log.data_types[0]!;
    expect(progress).toMatchObject({ data_type: "export.xml", records_read: 8, observations_created: 7, bytes_processed: progress.bytes_total });
    expect(progress.skipped_by_reason).toMatchObject({ "blood pressure is read from its correlation": 2, "<Workout> is not imported": 1, "<ActivitySummary> is not imported": 1 });

    const obs = await observations(t, device.patientId);
    expect(obs.filter((o) => codeOf(o) === "85354-9")).toHaveLength(1);
    const spo2 = obs.find((o) => codeOf(o) === "2708-6");
    expect(spo2?.valueQuantity?.value).toBe(97);
    // export.xml's "2026-11-18 03:09:41 -0500", read with its offset (the store keeps the instant).
    expect(Date.parse(spo2?.effectiveDateTime ?? "")).toBe(Date.parse("2026-11-18T03:09:41-05:00"));
    const steps = obs.find((o) => codeOf(o) === "55423-8")?.effectivePeriod;
    expect([Date.parse(steps?.start ?? ""), Date.parse(steps?.end ?? "")]).toEqual([Date.parse("2026-11-18T10:00:00-05:00"), Date.parse("2026-11-18T10:10:00-05:00")]);

    const second = await finishedSync(t, ((await (await put()).json()) as { sync_id: string }).sync_id);
    expect(second.data_types[0]).toMatchObject({ observations_created: 0, duplicates_skipped: 7 });
    expect((await observations(t, device.patientId)).length).toBe(obs.length);
  });

  it("refuses a body without a length, and fails (in the sync log) a file that is not an export", async () => {
    const device = await companionDevice(t, "ios_health_app", "Bad export");
    const stream = new ReadableStream({
      start(c) {
        c.enqueue(new TextEncoder().encode("<HealthData/>"));
        c.close();
      },
    });
    const noLength = await call(`/api/v1/companion/${t.orgId}/apple-health/export`, { method: "PUT", body: stream, headers: { authorization: `Bearer ${device.token}` }, duplex: "half" } as RequestInit);
    expect(noLength.status).toBe(411);
    const res = await upload(t.orgId, "apple-health/export", device.token, { method: "PUT", body: "<html><body>not an export</body></html>" });
    expect(res.status).toBe(202);
    const log = await finishedSync(t, ((await res.json()) as { sync_id: string }).sync_id);
    expect(log.state).toBe("failed");
    expect(log.data_types[0]?.errors[0]?.reason).toContain("<html>");
  });

  it("imports a large export a chunk at a time, and resumes from the persisted state alone (as after an eviction)", async () => {
    const device = await companionDevice(t, "ios_health_app", "Large");
    const n = 600;
    const records = Array.from({ length: n }, (_, i) => {
      const when = new Date(Date.UTC(2026, 10, 1) + i * 60_000).toISOString().replace("T", " ").replace(/\.\d+Z$/, " +0000");
      return ` <Record type="HKQuantityTypeIdentifierHeartRate" sourceName="Jane’s Apple Watch 😀" unit="count/min" creationDate="${when}" startDate="${when}" endDate="${when}" value="${60 + (i % 40)}"><MetadataEntry key="HKMetadataKeyHeartRateMotionContext" value="1"/></Record>`;
    });
    const xml = `<?xml version="1.0" encoding="UTF-8"?>\n<HealthData locale="en_US">\n <ExportDate value="2026-11-20 09:00:00 +0000"/>\n${records.join("\n")}\n</HealthData>\n`;
    const key = `test-exports/${crypto.randomUUID()}.xml`;
    await env.BLOBS.put(key, xml);
    const size = new TextEncoder().encode(xml).length;
    let state = newImportState({ orgId: t.orgId, deviceId: device.deviceId, patientId: device.patientId, syncId: "local", key, size }, 16 * 1024);
    const offsets: number[] = [];
    while (state.state !== "completed" && state.state !== "failed") {
      // Only the persisted (JSON) state crosses from one step to the next, as across an eviction.
      state = await importStep(t.ctx, env.BLOBS, JSON.parse(JSON.stringify(state)));
      offsets.push(state.offset);
    }
    expect(state.state).toBe("completed");
    expect(offsets.length).toBeGreaterThan(5);
    expect(offsets.every((o, i) => i === 0 || o > offsets[i - 1]!)).toBe(true);
    expect(state).toMatchObject({ records: n, created: n, duplicates: 0, rejected: 0, offset: size });
    const count = (await (await t.fetch(`/fhir/r4/${t.orgId}/Observation?device=Device/${device.deviceId}&_summary=count`)).json()) as { total: number };
    expect(count.total).toBe(n);
  });
});
