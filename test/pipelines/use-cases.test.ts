// The pipelines' use cases called directly, without HTTP: the webhook runs the deployed
// version's named trigger, and an organization reaches only its own pipelines and executions.
import { describe, expect, it } from "vitest";
import { getExecution, listExecutions } from "../../src/features/pipelines/use-cases/executions";
import { triggerWebhook, updatePipeline } from "../../src/features/pipelines/use-cases/pipelines";
import { createPipeline, definition, edge } from "../support/pipelines";
import { createTenant } from "../support/tenants";

const hook = (id: string) => ({ id, type: "control.webhook_trigger" });
const echo = (id: string, label: string) => ({ id, type: "data.transform", config: { expression: `{"via": "${label}", "order": body.order}` } });
const delivery = (body: unknown, nodeId?: string) => ({ nodeId, wait: true, body: JSON.stringify(body), contentType: "application/json", concurrencyLimit: 10 });

describe("pipeline use cases", () => {
  it("the webhook starts the named trigger of the deployed version, not of a later undeployed one", async () => {
    const t = await createTenant();
    const id = await createPipeline(
      t,
      definition([hook("first"), hook("second"), echo("fromFirst", "first"), echo("fromSecond", "second")], [edge("first", "fromFirst", "event"), edge("second", "fromSecond", "event")]),
    );
    // Version 2 has no webhook trigger at all; version 1 stays deployed.
    await updatePipeline(t.ctx, id, { name: "p", description: "", definition: definition([{ id: "start", type: "control.manual_trigger" }], []) });

    const named = await triggerWebhook(t.ctx, id, delivery({ order: 7 }, "second"));
    expect(named).toMatchObject({ status: "completed", pipeline_version: 1, outputs: { fromSecond: { output: { via: "second", order: 7 } } } });
    expect(named.outputs).not.toHaveProperty("fromFirst");

    const first = await triggerWebhook(t.ctx, id, delivery({ order: 8 }));
    expect(first.outputs).toEqual({ fromFirst: { output: { via: "first", order: 8 } } });

    await expect(triggerWebhook(t.ctx, id, delivery({}, "fromFirst"))).rejects.toMatchObject({ status: 400 });
    const { rows } = await listExecutions(t.ctx, { pipelineId: id }, 10, 0);
    expect(rows.map((r) => r.trigger).sort()).toEqual(["webhook", "webhook"]);
  });

  it("another organization can neither trigger the pipeline nor read its executions", async () => {
    const [owner, other] = [await createTenant(), await createTenant()];
    const id = await createPipeline(owner, definition([hook("in"), echo("out", "in")], [edge("in", "out", "event")]));
    const done = await triggerWebhook(owner.ctx, id, delivery({ order: 1 }));
    await expect(triggerWebhook(other.ctx, id, delivery({ order: 1 }))).rejects.toMatchObject({ status: 404 });
    await expect(getExecution(other.ctx, done.execution_id)).rejects.toMatchObject({ status: 404 });
    expect((await listExecutions(other.ctx, { pipelineId: id }, 10, 0)).total).toBe(0);
    expect((await getExecution(owner.ctx, done.execution_id)).row.status).toBe("completed");
  });
});
