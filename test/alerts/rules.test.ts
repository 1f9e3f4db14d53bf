// /api/v1/alert-rules: validation naming the field, references checked in the org, roles, paging
// and tenancy.
import { describe, expect, it } from "vitest";
import { createKey, authedFetch, createTenant } from "../support/tenants";
import { createPipeline, definition, edge } from "../support/pipelines";
import { json, patientWithDevice } from "./support";

interface RuleBody {
  id: string;
  kind: string;
  threshold?: number;
  effective_hysteresis?: number;
  recipients: string;
  severity: string;
}
interface ErrorBody {
  error: { code: string; status: number; details?: { path: string; message: string }[] };
}

describe("alert rules API", () => {
  it("creates, lists (paged, filtered), gets, replaces and deletes rules", async () => {
    const t = await createTenant();
    const { patientId, deviceId } = await patientWithDevice(t);
    const high = await t.fetch("/api/v1/alert-rules", { method: "POST", json: { patient_id: patientId, metric: "heart_rate", kind: "high_value", threshold: 120, recipients: "both" } });
    expect(high.status).toBe(201);
    const rule = await json<RuleBody>(high);
    expect(rule).toMatchObject({ kind: "high_value", threshold: 120, effective_hysteresis: 6, recipients: "both", severity: "moderate" });
    const absence = await json<RuleBody>(t.fetch("/api/v1/alert-rules", { method: "POST", json: { patient_id: patientId, device_id: deviceId, kind: "data_absence", span_minutes: 720 } }));
    expect(absence.recipients).toBe("care_team");

    const page = await json<{ alert_rules: RuleBody[]; total_count: number }>(t.fetch("/api/v1/alert-rules?limit=1"));
    expect(page.total_count).toBe(2);
    expect(page.alert_rules).toHaveLength(1);
    const filtered = await json<{ alert_rules: RuleBody[] }>(t.fetch(`/api/v1/alert-rules?patient_id=${patientId}&kind=data_absence`));
    expect(filtered.alert_rules.map((r) => r.id)).toEqual([absence.id]);
    const panel = await json<{ alert_rules: RuleBody[] }>(t.fetch(`/api/v1/alert-rules?device_id=${deviceId}`));
    expect(panel.alert_rules.map((r) => r.id)).toEqual([absence.id]);
    expect((await json<{ total_count: number }>(t.fetch("/api/v1/alert-rules?metric=heart_rate"))).total_count).toBe(1);

    const put = await t.fetch(`/api/v1/alert-rules/${rule.id}`, { method: "PUT", json: { patient_id: patientId, metric: "heart_rate", kind: "high_value", threshold: 130, hysteresis: 0, severity: "high" } });
    expect(put.status).toBe(200);
    expect(await json<RuleBody>(t.fetch(`/api/v1/alert-rules/${rule.id}`))).toMatchObject({ threshold: 130, effective_hysteresis: 0, severity: "high" });
    expect((await t.fetch(`/api/v1/alert-rules/${rule.id}`, { method: "DELETE" })).status).toBe(204);
    expect((await t.fetch(`/api/v1/alert-rules/${rule.id}`)).status).toBe(404);
  });

  it("answers 400 naming the field: missing numbers, low above high, unknown references, bad pipeline", async () => {
    const t = await createTenant();
    const { patientId } = await patientWithDevice(t);
    const post = (body: Record<string, unknown>) => t.fetch("/api/v1/alert-rules", { method: "POST", json: body });
    const paths = async (res: Response) => {
      expect(res.status).toBe(400);
      return ((await res.json()) as ErrorBody).error.details?.map((d) => d.path);
    };
    expect(await paths(await post({ patient_id: patientId, metric: "heart_rate", kind: "high_value" }))).toEqual(["threshold"]);
    expect(await paths(await post({ patient_id: patientId, metric: "heart_rate", kind: "rapid_change", amount: -3, span_minutes: 30 }))).toEqual(["amount"]);
    expect(await paths(await post({ patient_id: patientId, metric: "heart_rate", kind: "high_value", threshold: 100, recipients: "everyone" }))).toEqual(["recipients"]);
    expect(await paths(await post({ patient_id: patientId, metric: "heart_rate", kind: "high_value", threshold: 100, extra: 1 }))).toEqual(["(root)"]);
    expect((await post({ patient_id: patientId, metric: "heart_rate", kind: "high_value", threshold: 120 })).status).toBe(201);
    const clash = await post({ patient_id: patientId, metric: "heart_rate", kind: "low_value", threshold: 125 });
    expect(await paths(clash.clone())).toEqual(["threshold"]);
    expect(((await clash.json()) as ErrorBody).error.details?.[0]?.path).toBe("threshold");
    expect((await post({ patient_id: patientId, metric: "heart_rate", kind: "low_value", threshold: 50 })).status).toBe(201);
    expect(await paths(await post({ patient_id: "no-such-patient", metric: "heart_rate", kind: "high_value", threshold: 100 }))).toEqual(["patient_id"]);
    expect(await paths(await post({ patient_id: patientId, device_id: "no-such-device", kind: "data_absence", span_minutes: 60 }))).toEqual(["device_id"]);
    const manual = await createPipeline(t, definition([{ id: "start", type: "control.manual_trigger" }], []));
    expect(await paths(await post({ patient_id: patientId, metric: "spo2", kind: "low_value", threshold: 90, pipeline_id: manual }))).toEqual(["pipeline_id"]);
    expect(await paths(await post({ patient_id: patientId, metric: "spo2", kind: "low_value", threshold: 90, pipeline_id: crypto.randomUUID() }))).toEqual(["pipeline_id"]);
    const alerting = await createPipeline(t, definition([{ id: "on", type: "alerts.alert_trigger" }, { id: "echo", type: "data.transform", config: { expression: "$" } }], [edge("on", "echo", "alert")]));
    expect((await post({ patient_id: patientId, metric: "spo2", kind: "low_value", threshold: 90, pipeline_id: alerting })).status).toBe(201);
  });

  it("admins and clinicians write rules; a service key reads them but cannot change them", async () => {
    const t = await createTenant();
    const { patientId } = await patientWithDevice(t);
    const clinician = authedFetch(t.orgId, (await createKey(t.orgId, "clinician")).key);
    const service = authedFetch(t.orgId, (await createKey(t.orgId, "service")).key);
    const body = { patient_id: patientId, metric: "spo2", kind: "low_value", threshold: 90 };
    const created = await clinician("/api/v1/alert-rules", { method: "POST", json: body });
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: string };
    expect((await service("/api/v1/alert-rules", { method: "POST", json: body })).status).toBe(403);
    expect((await service(`/api/v1/alert-rules/${id}`, { method: "PUT", json: body })).status).toBe(403);
    expect((await service(`/api/v1/alert-rules/${id}`, { method: "DELETE" })).status).toBe(403);
    expect((await service(`/api/v1/alert-rules/${id}`)).status).toBe(200);
    expect((await service("/api/v1/alert-rules")).status).toBe(200);
  });

  it("never shows or touches another organization's rules or patients", async () => {
    const a = await createTenant();
    const b = await createTenant();
    const { patientId } = await patientWithDevice(a);
    const body = { patient_id: patientId, metric: "spo2", kind: "low_value", threshold: 90 };
    const { id } = await json<{ id: string }>(a.fetch("/api/v1/alert-rules", { method: "POST", json: body }));
    expect((await b.fetch(`/api/v1/alert-rules/${id}`)).status).toBe(404);
    expect((await b.fetch(`/api/v1/alert-rules/${id}`, { method: "PUT", json: body })).status).toBe(404);
    expect((await b.fetch(`/api/v1/alert-rules/${id}`, { method: "DELETE" })).status).toBe(404);
    expect((await json<{ total_count: number }>(b.fetch("/api/v1/alert-rules"))).total_count).toBe(0);
    // B cannot watch A's patient: the Patient does not exist in B's store.
    expect((await b.fetch("/api/v1/alert-rules", { method: "POST", json: body })).status).toBe(400);
    // A's key with B's organization header is refused.
    expect((await a.fetch("/api/v1/alert-rules", { headers: { "x-organization-id": b.orgId } })).status).toBe(403);
    expect((await a.fetch(`/api/v1/alert-rules/${id}`)).status).toBe(200);
  });
});
