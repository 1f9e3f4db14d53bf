// The management actions of the areas that joined after the audit trail: device integrations,
// device links and syncs, alert rules and alerts, and copilot suggestions applied, each one
// AuditEvent with its action, entity and outcome (through the same middleware table).
import { describe, expect, it } from "vitest";
import { auditsDelivered } from "../support/queues";
import { createTenant, type Tenant } from "../support/tenants";

interface Audit {
  outcome: string;
  subtype: { system: string; code: string }[];
  entity: { type: { code: string }; what?: { identifier: { value: string } } }[];
}

/**
 * The AuditEvent of `action` on `entityId`. Management AuditEvents reach storage through the audit
 * queue (docs/audit.md), so the queue is flushed first: once it has delivered everything sent
 * before, the event is there or it was never recorded.
 */
async function auditOf(t: Tenant, action: string, entityId: string): Promise<Audit | undefined> {
  await auditsDelivered();
  const events = ((await (await t.fetch(`/api/audit?action=${action}`)).json()) as { audit_events: Audit[] }).audit_events;
  return events.find((e) => e.entity[0]?.what?.identifier.value === entityId);
}

describe("management audit of devices, alerts and the copilot", () => {
  it("records integrations, links, rules and alerts handling", async () => {
    const t = await createTenant();
    const integration = await t.fetch("/api/v1/device-integrations", { method: "POST", json: { platform: "smart_ring", name: "Ring", credentials: { client_id: "c", client_secret: "never-in-audit" } } });
    expect(integration.status, await integration.clone().text()).toBe(201);
    const integrationId = ((await integration.json()) as { id: string }).id;
    expect(await auditOf(t, "device.integration_create", integrationId)).toMatchObject({ outcome: "0", entity: [{ type: { code: "device_integration" } }] });
    const patient = (await (await t.fetch(`/fhir/r4/${t.orgId}/Patient`, { method: "POST", json: { resourceType: "Patient" } })).json()) as { id: string };
    const link = (await (await t.fetch(`/api/v1/patients/${patient.id}/devices`, { method: "POST", json: { platform: "manual", name: "Cuff" } })).json()) as { device_id: string };
    expect(await auditOf(t, "device.link", link.device_id)).toMatchObject({ outcome: "0" });
    const rule = (await (await t.fetch("/api/v1/alert-rules", { method: "POST", json: { patient_id: patient.id, metric: "heart_rate", kind: "high_value", threshold: 130 } })).json()) as { id: string };
    expect(await auditOf(t, "alert_rule.create", rule.id)).toMatchObject({ outcome: "0", entity: [{ type: { code: "alert_rule" } }] });
    expect((await t.fetch(`/api/v1/alert-rules/${rule.id}`, { method: "DELETE" })).status).toBeLessThan(300);
    expect(await auditOf(t, "alert_rule.delete", rule.id)).toMatchObject({ outcome: "0" });
    expect((await t.fetch(`/api/v1/patients/${patient.id}/devices/${link.device_id}`, { method: "DELETE" })).status).toBeLessThan(300);
    expect(await auditOf(t, "device.unlink", link.device_id)).toMatchObject({ outcome: "0" });
    const missing = await t.fetch("/api/v1/alerts/no-such-alert/acknowledge", { method: "POST", json: {} });
    expect(missing.status).toBe(404);
    expect(await auditOf(t, "alert.acknowledge", "no-such-alert")).toMatchObject({ outcome: "4" });
    const everything = JSON.stringify(((await (await t.fetch("/api/audit?limit=100")).json()) as { audit_events: unknown[] }).audit_events);
    expect(everything).not.toContain("never-in-audit");
  });
});
