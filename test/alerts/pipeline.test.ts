// The alert trigger: the pipeline a rule names runs once per episode of that rule with the alert as
// input, and only it (a deployed alert-trigger pipeline no rule names never runs); its trigger's
// filters narrow further (recorded when they exclude); redelivery of the event starts nothing twice;
// other organizations' pipelines never start.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { evaluateReadings } from "../../src/features/alerts/evaluate-readings";
import { ALERT_EVENT } from "../../src/features/alerts/rule";
import { dispatchToPipelines } from "../../src/features/pipelines/triggers";
import { runScheduledWork } from "../../src/main/scheduled";
import { createPipeline, definition, driveExecution, edge } from "../support/pipelines";
import { createTenant, type Tenant } from "../support/tenants";
import { adminOf, evaluate, json, patientWithDevice, readResource, series } from "./support";

const T0 = new Date("2026-04-01T00:00:00Z");

const alertPipeline = (config: Record<string, unknown>) =>
  definition([{ id: "on", type: "alerts.alert_trigger", config }, { id: "echo", type: "data.transform", config: { expression: "$" } }], [edge("on", "echo", "alert")]);

async function executions(t: Tenant, pipelineId: string) {
  return json<{ executions: { execution_id: string; trigger: string }[]; total_count: number }>(t.fetch(`/api/executions?pipeline_id=${pipelineId}`));
}

describe("alert trigger", () => {
  it("runs the pipeline the rule names once per episode, with the alert as input, and no other", async () => {
    const t = await createTenant();
    const other = await createTenant();
    const who = await patientWithDevice(t);
    // Deployed alert-trigger pipelines that no rule names: they never run, whatever their filters.
    const highs = await createPipeline(t, alertPipeline({ kind: "high_value" }));
    const unfiltered = await createPipeline(t, alertPipeline({}));
    const named = await createPipeline(t, alertPipeline({ severity: "moderate" }));
    const theirs = await createPipeline(other, alertPipeline({}));
    const res = await t.fetch("/api/v1/alert-rules", { method: "POST", json: { patient_id: who.patientId, metric: "heart_rate", kind: "high_value", threshold: 120, pipeline_id: named } });
    expect(res.status).toBe(201);

    // One excursion (three high readings), then normal, then a second excursion.
    await evaluate(t, await series(t, who, "heart_rate", [130, 140, 135], T0));
    const afterFirst = await json<{ alerts: { id: string; pipeline_runs: { pipeline_id: string; execution_id?: string }[] }[] }>(t.fetch("/api/v1/alerts"));
    const [alert] = afterFirst.alerts as [(typeof afterFirst.alerts)[number]];
    expect(alert.pipeline_runs.map((r) => r.pipeline_id)).toEqual([named]);
    expect((await executions(t, named)).total_count).toBe(1);
    for (const id of [highs, unfiltered]) expect((await executions(t, id)).total_count).toBe(0);
    expect((await executions(other, theirs)).total_count).toBe(0);

    const run = await driveExecution(t, alert.pipeline_runs[0]?.execution_id as string);
    expect(run.status).toBe("completed");
    expect(run.outputs.echo?.output).toMatchObject({ id: alert.id, kind: "high_value", patient_id: who.patientId, value: 130, limit: 120, resources: { detected_issue: `DetectedIssue/${alert.id}` } });

    // The same event delivered again (a publication retried) starts nothing new.
    const again = await dispatchToPipelines(t.ctx, { type: ALERT_EVENT, id: alert.id, attributes: { kind: "high_value", severity: "moderate" }, payload: {} }, [named]);
    expect(again.map((r) => r.execution_id)).toEqual([alert.pipeline_runs[0]?.execution_id]);
    expect((await executions(t, named)).total_count).toBe(1);

    await evaluate(t, await series(t, who, "heart_rate", [90, 150], new Date(T0.getTime() + 10 * 60_000)));
    expect((await executions(t, named)).total_count).toBe(2);
    for (const id of [highs, unfiltered]) expect((await executions(t, id)).total_count).toBe(0);
  });

  it("records a named pipeline whose trigger's filters exclude the rule's alert, without running it", async () => {
    const t = await createTenant();
    const who = await patientWithDevice(t);
    const lows = await createPipeline(t, alertPipeline({ kind: "low_value" }));
    await t.fetch("/api/v1/alert-rules", { method: "POST", json: { patient_id: who.patientId, metric: "heart_rate", kind: "high_value", threshold: 120, pipeline_id: lows } });
    await evaluate(t, await series(t, who, "heart_rate", [130], T0));
    const { alerts } = await json<{ alerts: { pipeline_runs: unknown[] }[] }>(t.fetch("/api/v1/alerts"));
    expect(alerts[0]?.pipeline_runs).toEqual([{ pipeline_id: lows, error: { code: "PIPELINE_NOT_TRIGGERED", message: "The filters of the pipeline's device.alert trigger exclude this event" } }]);
    expect((await executions(t, lows)).total_count).toBe(0);
  });

  it("an alert whose publication was cut short is finished by the cron, without running its pipelines again", async () => {
    const t = await createTenant();
    const who = await patientWithDevice(t);
    const highs = await createPipeline(t, alertPipeline({}));
    await t.fetch("/api/v1/alert-rules", { method: "POST", json: { patient_id: who.patientId, metric: "heart_rate", kind: "high_value", threshold: 120, recipients: "patient", pipeline_id: highs } });
    await evaluate(t, await series(t, who, "heart_rate", [130], T0));
    const { alerts } = await json<{ alerts: { id: string }[] }>(t.fetch("/api/v1/alerts"));
    const id = alerts[0]?.id as string;
    // As if the Worker died between committing the alert and publishing it.
    await t.ctx.fhir(adminOf(t)).delete("DetectedIssue", id);
    await t.ctx.d1.prepare("UPDATE alerts SET published_at = NULL, resources = '{}' WHERE org_id = ?1 AND id = ?2").bind(t.orgId, id).run();
    await runScheduledWork(env, new Date());
    expect((await readResource(t, "DetectedIssue", id)).status).toBe("final");
    const after = await json<{ resources: { detected_issue?: string; communications?: string[] }; pipeline_runs: unknown[] }>(t.fetch(`/api/v1/alerts/${id}`));
    expect(after.resources).toMatchObject({ detected_issue: `DetectedIssue/${id}`, communications: [`Communication/${id}-patient`] });
    expect((await executions(t, highs)).total_count).toBe(1);
  });

  it("a failing store leaves the alert unpublished with the reason; the cron retries it", async () => {
    const t = await createTenant();
    const who = await patientWithDevice(t);
    await t.fetch("/api/v1/alert-rules", { method: "POST", json: { patient_id: who.patientId, metric: "spo2", kind: "low_value", threshold: 90 } });
    const failing = { ...t.ctx, fhir: () => { throw new Error("FHIR store unavailable"); } } as typeof t.ctx;
    const opened = await evaluateReadings(failing, await series(t, who, "spo2", [85], T0));
    expect(opened.opened).toHaveLength(1);
    const id = opened.opened[0]?.id as string;
    const failed = await json<{ published: boolean; publish_error: string | null; resources: Record<string, unknown> }>(t.fetch(`/api/v1/alerts/${id}`));
    expect(failed).toMatchObject({ published: false, publish_error: "FHIR store unavailable", resources: {} });
    await runScheduledWork(env, new Date());
    const done = await json<{ published: boolean; publish_error: string | null; resources: { detected_issue?: string } }>(t.fetch(`/api/v1/alerts/${id}`));
    expect(done).toMatchObject({ published: true, publish_error: null, resources: { detected_issue: `DetectedIssue/${id}` } });
  });

  it("records why the rule's pipeline could not start (undeployed since)", async () => {
    const t = await createTenant();
    const who = await patientWithDevice(t);
    const named = await createPipeline(t, alertPipeline({}));
    await t.fetch("/api/v1/alert-rules", { method: "POST", json: { patient_id: who.patientId, metric: "spo2", kind: "low_value", threshold: 90, pipeline_id: named } });
    await t.fetch(`/api/pipelines/${named}/undeploy`, { method: "POST" });
    await evaluate(t, await series(t, who, "spo2", [85], T0));
    const { alerts } = await json<{ alerts: { pipeline_runs: { pipeline_id: string; error?: { code: string } }[] }[] }>(t.fetch("/api/v1/alerts"));
    expect(alerts[0]?.pipeline_runs).toEqual([{ pipeline_id: named, error: { code: "PIPELINE_NOT_TRIGGERED", message: "The pipeline is not deployed with a device.alert trigger" } }]);
  });

  it("is in the node catalog", async () => {
    const t = await createTenant();
    const res = await t.fetch("/api/node-catalog/alerts.alert_trigger");
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ id: "alerts.alert_trigger", category: "control" });
  });
});
