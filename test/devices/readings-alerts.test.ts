// Readings stored through the device ingest path reach the threshold alerts (wired in the
// composition root): a high heart rate opens one alert, a redelivery opens none.
import { describe, expect, it } from "vitest";
import { createTenant } from "../support/tenants";

describe("device readings → threshold alerts", () => {
  it("evaluates new readings once, whichever path stored them", async () => {
    const t = await createTenant();
    const patient = (await (await t.fetch(`/fhir/r4/${t.orgId}/Patient`, { method: "POST", json: { resourceType: "Patient", name: [{ family: "Alerted" }] } })).json()) as { id: string };
    const link = await t.fetch(`/api/v1/patients/${patient.id}/devices`, { method: "POST", json: { platform: "manual", name: "Chest strap", platform_device_id: "strap-1" } });
    expect(link.status, await link.clone().text()).toBe(201);
    const device = (await link.json()) as { device_id: string };
    const rule = await t.fetch("/api/v1/alert-rules", { method: "POST", json: { patient_id: patient.id, metric: "heart_rate", kind: "high_value", threshold: 120, recipients: "care_team" } });
    expect(rule.status, await rule.clone().text()).toBe(201);
    const reading = (value: number, at: string, id: string) => ({ patient_id: patient.id, device_id: device.device_id, metric: "heart_rate", value, unit: "/min", time: { at }, platform: "manual", source_record_id: id });
    const batch = { readings: [reading(80, "2026-11-20T10:00:00Z", "r1"), reading(150, "2026-11-20T10:01:00Z", "r2"), reading(155, "2026-11-20T10:02:00Z", "r3")] };
    const sent = await t.fetch("/api/v1/devices/readings", { method: "POST", json: batch });
    expect(sent.status, await sent.clone().text()).toBe(200);
    const alerts = async () => ((await (await t.fetch(`/api/v1/alerts?patient_id=${patient.id}`)).json()) as { alerts: { kind: string; state: string }[] }).alerts;
    expect(await alerts()).toMatchObject([{ kind: "high_value", state: "active" }]);
    // The same batch again (a retry): duplicates, no new alert.
    await t.fetch("/api/v1/devices/readings", { method: "POST", json: batch });
    expect(await alerts()).toHaveLength(1);
  });
});
