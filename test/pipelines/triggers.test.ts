// Triggers: the authenticated webhook with idempotency keys, cron schedules
// (only while deployed), and service events through dispatchEvent.
import { env, exports } from "cloudflare:workers";
import { createExecutionContext, createScheduledController, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import worker from "../../src/main/entry";
import { dispatchEvent } from "../../src/features/pipelines/triggers";
import { runScheduledWork } from "../../src/main/scheduled";
import { createPipeline, definition, driveExecution, edge } from "../support/pipelines";
import { createKey, authedFetch, createTenant, type Tenant } from "../support/tenants";

async function executions(t: Tenant, pipelineId: string) {
  return (await (await t.fetch(`/api/executions?pipeline_id=${pipelineId}`)).json()) as { executions: { execution_id: string; trigger: string; status: string }[]; total_count: number };
}

const echo = (triggerNode: { id: string; type: string; config?: Record<string, unknown> }) =>
  definition([triggerNode, { id: "echo", type: "data.transform", config: { expression: "$" } }], [edge(triggerNode.id, "echo", "event")]);

describe("webhook trigger", () => {
  it("starts the deployed pipeline with the body, deduplicates by Idempotency-Key, needs pipelines:execute", async () => {
    const t = await createTenant();
    const id = await createPipeline(t, echo({ id: "hook", type: "control.webhook_trigger" }));
    const post = (key?: string) => t.fetch(`/api/pipelines/${id}/webhook`, { method: "POST", json: { order: 42 }, headers: key ? { "idempotency-key": key } : {} });
    const first = await post("delivery-1");
    expect(first.status).toBe(202);
    const started = (await first.json()) as { execution_id: string };
    const again = (await (await post("delivery-1")).json()) as { execution_id: string };
    expect(again.execution_id).toBe(started.execution_id);
    expect((await executions(t, id)).total_count).toBe(1);
    const done = await driveExecution(t, started.execution_id);
    expect(done.outputs.echo?.output).toMatchObject({ body: { order: 42 } });

    const garbled = await t.fetch(`/api/pipelines/${id}/webhook`, { method: "POST", body: "{not json", headers: { "content-type": "application/json" } });
    expect(garbled.status).toBe(400);

    const waited = await t.fetch(`/api/pipelines/${id}/webhook?wait=true`, { method: "POST", json: { order: 1 } });
    expect(waited.status).toBe(200);
    expect(((await waited.json()) as { status: string }).status).toBe("completed");

    const { key } = await createKey(t.orgId, "clinician");
    const viewerKeyFetch = authedFetch(t.orgId, key);
    expect((await viewerKeyFetch(`/api/pipelines/${id}/webhook`, { method: "POST", json: {} })).status).toBe(202);
    const unauthenticated = await exports.default.fetch(new Request(`http://localhost/api/pipelines/${id}/webhook`, { method: "POST", body: "{}", headers: { "content-type": "application/json", "x-organization-id": t.orgId } }));
    expect(unauthenticated.status).toBe(401);

    await t.fetch(`/api/pipelines/${id}/undeploy`, { method: "POST" });
    expect((await post()).status).toBe(409);
    const other = await createTenant();
    expect((await other.fetch(`/api/pipelines/${id}/webhook`, { method: "POST", json: {} })).status).toBe(404);
  });
});

describe("schedule trigger", () => {
  it("runs due schedules of deployed pipelines once per minute; undeploy stops them", async () => {
    const t = await createTenant();
    const id = await createPipeline(t, echo({ id: "cron", type: "control.schedule_trigger", config: { cron: "*/5 * * * *" } }));
    const due = new Date("2030-01-01T10:05:30Z");
    const results = (await runScheduledWork(env, due)).filter((r) => r.pipeline_id === id);
    expect(results).toHaveLength(1);
    // A second delivery of the same tick starts nothing new.
    await runScheduledWork(env, due);
    expect((await executions(t, id)).total_count).toBe(1);
    const done = await driveExecution(t, results[0]?.execution_id as string);
    expect(done.inputs).toEqual({ scheduled_time: "2030-01-01T10:05:00.000Z" });
    expect((await runScheduledWork(env, new Date("2030-01-01T10:06:00Z"))).filter((r) => r.pipeline_id === id)).toHaveLength(0);

    await t.fetch(`/api/pipelines/${id}/undeploy`, { method: "POST" });
    expect((await runScheduledWork(env, new Date("2030-01-01T10:10:00Z"))).filter((r) => r.pipeline_id === id)).toHaveLength(0);
    expect((await executions(t, id)).total_count).toBe(1);
  });

  it("the Worker's scheduled handler starts due pipelines", async () => {
    const t = await createTenant();
    const id = await createPipeline(t, echo({ id: "cron", type: "control.schedule_trigger", config: { cron: "* * * * *" } }));
    const controller = createScheduledController({ scheduledTime: new Date("2031-02-03T04:05:00Z"), cron: "* * * * *" });
    const ctx = createExecutionContext();
    worker.scheduled(controller, env, ctx);
    await waitOnExecutionContext(ctx);
    const list = await executions(t, id);
    expect(list.executions.map((e) => e.trigger)).toEqual(["schedule"]);
  });

  it("rejects an invalid cron on save", async () => {
    const t = await createTenant();
    const res = await t.fetch("/api/pipelines", { method: "POST", json: { name: "x", definition: echo({ id: "cron", type: "control.schedule_trigger", config: { cron: "every day" } }) } });
    expect(res.status).toBe(400);
  });
});

describe("event trigger", () => {
  it("dispatchEvent starts every deployed pipeline whose type and attributes match, in that org only", async () => {
    const a = await createTenant();
    const b = await createTenant();
    const adt = await createPipeline(a, echo({ id: "ev", type: "control.event_trigger", config: { event_type: "hl7.message", attributes: { message_type: "ADT" } } }));
    const anyHl7 = await createPipeline(a, echo({ id: "ev", type: "control.event_trigger", config: { event_type: "hl7.message" } }));
    const oru = await createPipeline(a, echo({ id: "ev", type: "control.event_trigger", config: { event_type: "hl7.message", attributes: { message_type: "ORU" } } }));
    const alerts = await createPipeline(a, echo({ id: "ev", type: "control.event_trigger", config: { event_type: "device.alert" } }));
    const draft = await createPipeline(a, echo({ id: "ev", type: "control.event_trigger", config: { event_type: "hl7.message" } }), { deploy: false });
    const otherOrg = await createPipeline(b, echo({ id: "ev", type: "control.event_trigger", config: { event_type: "hl7.message" } }));

    const started = await dispatchEvent(a.ctx, { type: "hl7.message", attributes: { message_type: "ADT", trigger_event: "A01", sending_facility: "LAB" }, payload: "MSH|^~\\&|..." });
    expect(started.map((s) => s.pipeline_id).sort()).toEqual([adt, anyHl7].sort());
    expect(started.every((s) => s.execution_id)).toBe(true);
    for (const p of [oru, alerts, draft]) expect((await executions(a, p)).total_count).toBe(0);
    expect((await executions(b, otherOrg)).total_count).toBe(0);

    const done = await driveExecution(a, started[0]?.execution_id as string);
    expect(done.outputs.echo?.output).toMatchObject({ type: "hl7.message", attributes: { message_type: "ADT" }, payload: "MSH|^~\\&|..." });
  });
});
