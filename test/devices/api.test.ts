// Device integrations, patient devices, vitals and the timeline over HTTP: shapes, roles,
// bad input as 400 with the field, and another org's records as 404.
import { describe, expect, it } from "vitest";
import { authedFetch, call, createKey, createTenant } from "../support/tenants";
import { createPatient, linkDevice, minutesAgo, postReadings, reading } from "./support";

const integration = { platform: "smart_ring", name: "Oura", credentials: { client_id: "abc", client_secret: "super-secret-value" } };

describe("device integrations", () => {
  it("creates, lists, gets, updates and deletes; credentials sealed and never returned", async () => {
    const t = await createTenant();
    const created = await t.fetch("/api/v1/device-integrations", { method: "POST", json: integration });
    expect(created.status).toBe(201);
    const body = (await created.json()) as { id: string; status: string; credentials: Record<string, string> };
    expect(body.status).toBe("Active");
    expect(JSON.stringify(body)).not.toContain("super-secret-value");
    expect(body.credentials.client_secret).toBe("****alue");
    const row = await t.ctx.d1.prepare("SELECT credentials_enc FROM device_integrations WHERE id = ?").bind(body.id).first<{ credentials_enc: string }>();
    expect(row?.credentials_enc).not.toContain("super-secret");
    const list = (await (await t.fetch("/api/v1/device-integrations")).json()) as { integrations: unknown[]; total_count: number };
    expect(list.total_count).toBe(1);
    expect((await t.fetch("/api/v1/device-integrations", { method: "POST", json: integration })).status).toBe(409);
    const updated = await t.fetch(`/api/v1/device-integrations/${body.id}`, { method: "PUT", json: { platform: "smart_ring", name: "Oura prod" } });
    expect(((await updated.json()) as { name: string; credentials: Record<string, string> }).credentials.client_secret).toBe("****alue");
    expect((await t.fetch(`/api/v1/device-integrations/${body.id}`, { method: "PUT", json: { platform: "sports_watch", name: "x" } })).status).toBe(400);
    expect((await t.fetch(`/api/v1/device-integrations/${body.id}`, { method: "DELETE" })).status).toBe(204);
    expect((await t.fetch(`/api/v1/device-integrations/${body.id}`)).status).toBe(404);
  });

  it("refuses unknown platforms and missing credentials with the field", async () => {
    const t = await createTenant();
    const res = await t.fetch("/api/v1/device-integrations", { method: "POST", json: { ...integration, platform: "toaster" } });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { details: { path: string }[] } }).error.details[0]!.path).toBe("platform");
    const none = await t.fetch("/api/v1/device-integrations", { method: "POST", json: { platform: "smart_ring", name: "x" } });
    expect(((await none.json()) as { error: { details: { path: string }[] } }).error.details[0]!.path).toBe("credentials");
  });

  it("is admin only and per organization", async () => {
    const t = await createTenant();
    const id = ((await (await t.fetch("/api/v1/device-integrations", { method: "POST", json: integration })).json()) as { id: string }).id;
    const clinician = authedFetch(t.orgId, (await createKey(t.orgId, "clinician")).key);
    expect((await clinician("/api/v1/device-integrations")).status).toBe(403);
    expect((await clinician("/api/v1/device-integrations", { method: "POST", json: integration })).status).toBe(403);
    const other = await createTenant();
    expect((await other.fetch(`/api/v1/device-integrations/${id}`)).status).toBe(404);
    expect((await other.fetch(`/api/v1/device-integrations/${id}`, { method: "PUT", json: { platform: "smart_ring", name: "x" } })).status).toBe(404);
    expect((await other.fetch(`/api/v1/device-integrations/${id}`, { method: "DELETE" })).status).toBe(404);
    expect(((await (await other.fetch("/api/v1/device-integrations")).json()) as { total_count: number }).total_count).toBe(0);
  });
});

describe("patient devices", () => {
  it("links (FHIR Device), lists, refuses a second link of the same platform device, unlinks", async () => {
    const t = await createTenant();
    const patient = await createPatient(t);
    const device = await linkDevice(t, patient, { platform_device_id: "ring-42", manufacturer: "Oura", tokens: { access_token: "patient-token-secret" } });
    const list = (await (await t.fetch(`/api/v1/patients/${patient}/devices`)).json()) as { devices: { device_id: string }[]; total_count: number };
    expect(list.devices.map((d) => d.device_id)).toEqual([device]);
    expect(JSON.stringify(list)).not.toContain("patient-token-secret");
    expect((await t.fetch(`/api/v1/patients/${patient}/devices`, { method: "POST", json: { name: "again", platform: "smart_ring", platform_device_id: "ring-42" } })).status).toBe(409);
    expect((await t.fetch(`/api/v1/patients/${patient}/devices/${device}`, { method: "DELETE" })).status).toBe(204);
    const dev = (await (await t.fetch(`/fhir/r4/${t.orgId}/Device/${device}`)).json()) as { status: string };
    expect(dev.status).toBe("inactive");
    expect(((await (await t.fetch(`/api/v1/patients/${patient}/devices`)).json()) as { total_count: number }).total_count).toBe(0);
    const late = await postReadings(t, [reading(patient, device)]);
    expect(late.results[0]!.status).toBe("rejected");
  });

  it("answers 404 for another org's patient or device, 400 for a wrong integration", async () => {
    const a = await createTenant();
    const patient = await createPatient(a);
    const device = await linkDevice(a, patient);
    const b = await createTenant();
    expect((await b.fetch(`/api/v1/patients/${patient}/devices`)).status).toBe(404);
    expect((await b.fetch(`/api/v1/patients/${patient}/devices`, { method: "POST", json: { name: "x", platform: "smart_ring" } })).status).toBe(404);
    expect((await b.fetch(`/api/v1/patients/${patient}/devices/${device}`, { method: "DELETE" })).status).toBe(404);
    const res = await a.fetch(`/api/v1/patients/${patient}/devices`, { method: "POST", json: { name: "x", platform: "smart_ring", integration_id: "nope" } });
    expect(res.status).toBe(400);
  });
});

describe("device platform catalog", () => {
  it("says which platforms a sync pulls from; a push-only (MQTT) device's sync is refused, as its descriptor says", async () => {
    const t = await createTenant();
    const clinician = await createKey(t.orgId, "clinician");
    const res = await authedFetch(t.orgId, clinician.key)("/api/v1/device-platforms");
    expect(res.status).toBe(200);
    const { platforms } = (await res.json()) as { platforms: { kind: string; vendor: string | null; pulls: boolean; oauth: boolean; data_types: string[] }[] };
    const of = (kind: string) => platforms.find((p) => p.kind === kind);
    expect(of("smart_ring")).toMatchObject({ vendor: "Oura", pulls: true, oauth: true });
    expect(of("smart_ring")?.data_types).toContain("heartrate");
    expect(of("mqtt")).toMatchObject({ vendor: null, pulls: false, data_types: [] });
    expect(of("ios_health_app")?.pulls).toBe(false);

    const patientId = await createPatient(t);
    const mqtt = await linkDevice(t, patientId, { name: "Ward monitor", platform: "mqtt" });
    const sync = await t.fetch(`/api/v1/devices/${mqtt}/sync`, { method: "POST", json: {} });
    expect(sync.status).toBe(400);
    expect(((await sync.json()) as { error: { details: { message: string }[] } }).error.details[0]?.message).toMatch(/push/);
    expect((await call("/api/v1/device-platforms")).status).toBe(401);
  });
});

describe("vitals", () => {
  it("answers the 2.8 shape with points, source device and summary", async () => {
    const t = await createTenant();
    const patient = await createPatient(t);
    const device = await linkDevice(t, patient);
    await postReadings(t, [60, 70, 80].map((value, i) => reading(patient, device, { value, time: { at: minutesAgo(30 - i) } })));
    const res = await t.fetch(`/api/v1/patients/${patient}/vitals?metric=heart_rate&days=7`);
    expect(res.status).toBe(200);
    const v = (await res.json()) as Record<string, unknown> & { data_points: { value: number; device: { id: string; name: string } }[] };
    expect(v).toMatchObject({ metric: "heart_rate", unit: "bpm", days: 7, resolution: "raw", summary: { min: 60, max: 80, average: 70, count: 3 } });
    expect(v.data_points.map((p) => p.value)).toEqual([60, 70, 80]);
    expect(v.data_points[0]!.device).toEqual({ id: device, name: "Oura Ring Gen3" });
  });

  it("serves all 13 metrics, glucose from meter and CGM in mg/dL", async () => {
    const t = await createTenant();
    const patient = await createPatient(t);
    const device = await linkDevice(t, patient);
    await postReadings(t, [reading(patient, device, { metric: "blood_glucose", value: 5.5, unit: "mmol/L" }), reading(patient, device, { metric: "cgm_glucose", value: 110, unit: "mg/dL", time: { at: minutesAgo(200) } })]);
    for (const metric of ["heart_rate", "spo2", "sleep", "sleep_efficiency", "calories", "active_minutes", "distance", "steps", "hrv", "stress", "body_battery", "respiratory_rate"]) {
      expect((await t.fetch(`/api/v1/patients/${patient}/vitals?metric=${metric}`)).status).toBe(200);
    }
    const glucose = (await (await t.fetch(`/api/v1/patients/${patient}/vitals?metric=blood_glucose`)).json()) as { unit: string; summary: { count: number; max: number } };
    expect(glucose).toMatchObject({ unit: "mg/dL", summary: { count: 2, max: 110 } });
  });

  it("does not double count a metric two devices report for the same hour", async () => {
    const t = await createTenant();
    const patient = await createPatient(t);
    const ring = await linkDevice(t, patient);
    const watch = await linkDevice(t, patient, { name: "Watch", platform: "sports_watch" });
    const hour = new Date(Math.floor(Date.now() / 3_600_000) * 3_600_000 - 3 * 3_600_000);
    const at = (m: number) => new Date(hour.getTime() + m * 60_000).toISOString();
    await postReadings(t, [
      reading(patient, ring, { metric: "steps", value: 500, unit: "steps", time: { start: at(0), end: at(30) } }),
      reading(patient, watch, { metric: "steps", value: 480, unit: "steps", platform: "sports_watch", time: { start: at(0), end: at(30) } }),
      reading(patient, watch, { metric: "steps", value: 20, unit: "steps", platform: "sports_watch", time: { start: at(30), end: at(60) } }),
    ]);
    const v = (await (await t.fetch(`/api/v1/patients/${patient}/vitals?metric=steps&days=1`)).json()) as { summary: { count: number }; data_points: { device: { id: string } }[] };
    expect(v.summary.count).toBe(2);
    expect(v.data_points.every((p) => p.device.id === watch)).toBe(true);
  });

  it("answers 400 listing the metrics, 400 for bad days, 404 for another org's patient", async () => {
    const t = await createTenant();
    const patient = await createPatient(t);
    const res = await t.fetch(`/api/v1/patients/${patient}/vitals?metric=mood`);
    expect(res.status).toBe(400);
    expect(JSON.stringify(await res.json())).toContain("heart_rate, spo2, sleep");
    expect((await t.fetch(`/api/v1/patients/${patient}/vitals?metric=steps&days=0`)).status).toBe(400);
    const other = await createTenant();
    expect((await other.fetch(`/api/v1/patients/${patient}/vitals?metric=steps`)).status).toBe(404);
  });
});

describe("timeline", () => {
  it("lists a patient's events newest first, device readings as Device reading, filtered and paged", async () => {
    const t = await createTenant();
    const patient = await createPatient(t);
    const device = await linkDevice(t, patient);
    await postReadings(t, [reading(patient, device, { time: { at: minutesAgo(60) } }), reading(patient, device, { time: { at: minutesAgo(5) } })]);
    const post = (type: string, body: Record<string, unknown>) => t.fetch(`/fhir/r4/${t.orgId}/${type}`, { method: "POST", json: { resourceType: type, ...body } });
    await post("Encounter", { status: "finished", class: { code: "AMB" }, subject: { reference: `Patient/${patient}` }, period: { start: minutesAgo(30) } });
    await post("Condition", { subject: { reference: `Patient/${patient}` }, code: { text: "Hypertension" }, recordedDate: minutesAgo(120) });
    await post("Observation", { status: "final", code: { text: "Lab" }, subject: { reference: `Patient/${patient}` }, effectiveDateTime: minutesAgo(10) });
    const page = (await (await t.fetch(`/api/v1/patients/${patient}/timeline`)).json()) as { events: { type: string }[]; total_count: number };
    expect(page.events.map((e) => e.type)).toEqual(["Device reading", "Observation", "Encounter", "Device reading", "Condition"]);
    expect(page.total_count).toBe(5);
    const readings = (await (await t.fetch(`/api/v1/patients/${patient}/timeline?type=Device reading&limit=1&offset=1`)).json()) as { events: { type: string; title: string }[]; total_count: number };
    expect(readings).toMatchObject({ total_count: 2, events: [{ type: "Device reading", title: "heart_rate: 72 bpm" }] });
    expect((await t.fetch(`/api/v1/patients/${patient}/timeline?type=Gossip`)).status).toBe(400);
    const other = await createTenant();
    expect((await other.fetch(`/api/v1/patients/${patient}/timeline`)).status).toBe(404);
  });
});
