// WHOOP, Garmin, Polar, Suunto and Oura end to end on the device core as the Worker wires it
// (src/features/devices/platform-services.ts): per platform, link through the vendor's OAuth with the
// org's integration → webhooks signed exactly as the vendor signs them → Observations with the
// metric table's LOINC (or local) codes and UCUM units, every one of them stored (none refused)
// → the vitals endpoint and the patient timeline show them → a replayed webhook adds nothing →
// a webhook signed with another secret stores nothing → a manual sync, with its progress in the
// sync log → another organization sees none of it. What each platform adds is in
// vendors-device-records.test.ts. Only the vendors' clouds are mocks (vendor-cases.ts); the records
// are the reference's samples, moved to yesterday so the vitals window holds them.
import { beforeAll, describe, expect, it } from "vitest";
import { DEVICE_METRICS_SYSTEM, LOINC, UCUM } from "../../src/features/devices/metrics/codes";
import { createTenant, type Tenant } from "../support/tenants";
import { integrate, newPatientDevice, observations, syncAndWait, timelineReadings, vitalValues } from "./device-core";
import { deliver, type EventView, linkDevice, postWebhook, replay, webhookEvents } from "./support";
import { rowOf, round, sortRows, useVendorClouds, vendorWorld } from "./vendor-cases";

const { CASES } = vendorWorld();
useVendorClouds(CASES.map((c) => c.mock));

let other: Tenant;
beforeAll(async () => {
  other = await createTenant();
});

describe.each(CASES)("$vendor on the device core", (c) => {
  let t: Tenant;
  let patientId: string;
  let deviceId: string;
  const delivered: EventView[] = [];

  beforeAll(async () => {
    t = await createTenant();
    await integrate(t, c.kind, c.credentials, c.settings);
    ({ patientId, deviceId } = await newPatientDevice(t, c.kind, `${c.vendor} wearer`));
  });

  it("links through the vendor's OAuth with the organization's integration", async () => {
    const { response } = await linkDevice(t, c.kind, c.mock, c.user, { patientId, deviceId });
    expect(response.status, await response.clone().text()).toBe(200);
    expect(await response.json()).toMatchObject({ status: "linked", device_id: deviceId, platform_user_id: c.user.id });
    const devices = (await (await t.fetch(`/api/v1/patients/${patientId}/devices`)).json()) as { devices: { device_id: string; status: string }[] };
    expect(devices.devices.find((d) => d.device_id === deviceId)?.status).toBe("active");
  });

  it("signed webhooks become Observations with the metric table's codes and UCUM units, none refused", async () => {
    for (const body of c.deliveries) delivered.push(await deliver(t, c.kind, body, c.sign(body)));
    for (const event of delivered) expect(event, JSON.stringify(event)).toMatchObject({ status: "processed", rejected: 0, rejections: [] });
    expect(delivered.reduce((n, e) => n + e.readings, 0)).toBe(c.expected.length);
    const stored = await observations(t, patientId);
    expect(sortRows(stored.map(rowOf))).toEqual(sortRows([...c.expected]));
    for (const o of stored) {
      expect(o.status).toBe("final");
      expect(o.device?.reference).toBe(`Device/${deviceId}`);
      expect(o.valueQuantity?.system).toBe(UCUM);
      // LOINC where the table has a verified code, else the service's published CodeSystem.
      expect(o.code.coding[0]!.system).toBe(/^\d+-\d$/.test(o.code.coding[0]!.code) ? LOINC : DEVICE_METRICS_SYSTEM);
      expect(o.identifier?.[0]?.value.startsWith(`${c.kind}|`)).toBe(true);
    }
  });

  it("the vitals endpoint and the patient timeline show them", async () => {
    for (const metric of new Set([...Object.keys(c.vitals), ...Object.keys(c.aggregates)])) {
      const vitals = await vitalValues(t, patientId, metric);
      expect(vitals.values.map(round), metric).toEqual([...(c.vitals[metric] ?? [])].sort((x, y) => x - y));
      const aggregates = Object.fromEntries(Object.entries(c.aggregates[metric] ?? {}).map(([s, v]) => [s, [...v].sort((x, y) => x - y)]));
      expect(Object.fromEntries(Object.entries(vitals.aggregates).map(([s, v]) => [s, v.map(round)])), metric).toEqual(aggregates);
      expect(vitals.devices).toEqual([deviceId]);
    }
    const timeline = await timelineReadings(t, patientId);
    const stored = await observations(t, patientId);
    expect(timeline.length).toBe(Math.min(stored.length, 100));
    expect(stored.map((o) => o.id)).toEqual(expect.arrayContaining(timeline));
  });

  it("a replayed webhook adds nothing; one signed with another secret is 401 and stores nothing", async () => {
    const before = (await observations(t, patientId)).length;
    const body = c.deliveries[0]!;
    await replay(t, c.kind, body, c.sign(body));
    expect((await observations(t, patientId)).length).toBe(before);
    const events = (await webhookEvents(t)).length;
    const forged = await postWebhook(c.kind, t.orgId, body, c.forge(body));
    expect(forged.status).toBe(401);
    expect(((await forged.json()) as { error: { code: string } }).error.code).toBe("SIGNATURE_INVALID");
    expect((await webhookEvents(t)).length).toBe(events);
    expect((await observations(t, patientId)).length).toBe(before);
  });

  it("a manual sync shows its progress in the sync log", async () => {
    const log = await syncAndWait(t, deviceId, c.sync.body);
    expect(log.state, JSON.stringify(log)).toBe("completed");
    c.sync.check(log);
    expect((await observations(t, patientId)).every((o) => o.device?.reference === `Device/${deviceId}`)).toBe(true);
  });

  it("another organization sees none of it", async () => {
    const body = c.deliveries[0]!;
    // No integration of that kind there: the delivery is refused as for a bad signature.
    expect((await postWebhook(c.kind, other.orgId, body, c.sign(body))).status).toBe(401);
    expect((await other.fetch(`/api/v1/patients/${patientId}/vitals?metric=heart_rate`)).status).toBe(404);
    expect((await other.fetch(`/api/v1/patients/${patientId}/timeline`)).status).toBe(404);
    expect((await other.fetch(`/api/v1/devices/${deviceId}/sync`, { method: "POST", json: c.sync.body })).status).toBe(404);
    const theirs = (await (await other.fetch(`/fhir/r4/${other.orgId}/Observation?subject=Patient/${patientId}`)).json()) as { total?: number; entry?: unknown[] };
    expect(theirs.entry ?? []).toEqual([]);
    const ids = new Set(delivered.map((e) => e.id));
    expect((await webhookEvents(other)).some((e) => ids.has(e.id))).toBe(false);
  });
});