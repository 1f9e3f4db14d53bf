// Every Durable Object is named by the shared scheme and belongs to the org it was created for:
// a call naming another org is refused (writes) or finds nothing (reads), whatever the stub's name.
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { ExecutionRunner } from "../../src/features/pipelines/execution-runner";
import type { ExportJobState } from "../../src/features/export/job";
import type { ExecutionJob } from "../../src/features/pipelines/execution-service";
import { objectName, orgObject } from "../../src/platform/durable-objects/object-names";

const owner = `owner-${crypto.randomUUID()}`;
const intruder = `intruder-${crypto.randomUUID()}`;
const refused = /another organization/;

/** Calls a method inside the object, where its refusal is an ordinary rejected promise. */
function inside<T extends Rpc.DurableObjectBranded, R>(stub: DurableObjectStub<T>, call: (instance: T) => Promise<R>) {
  return runInDurableObject(stub, (instance: T) => call(instance));
}

/** A one-node job of `owner`. */
function stepJob(id: string): ExecutionJob {
  return {
    orgId: owner,
    executionId: id,
    pipelineId: "p",
    version: 1,
    definition: { nodes: [{ id: "start", type: "control.manual_trigger", config: {} }], connections: [] },
    testMode: true,
    trigger: { kind: "step" },
    startedAt: new Date().toISOString(),
    state: { inputs: {}, nodes: { start: { status: "pending", node_type: "control.manual_trigger", logs: [], attempts: 0, duration_ms: 0 } } },
  } as unknown as ExecutionJob;
}

describe("Durable Object names", () => {
  it("encode org and parts unambiguously", () => {
    expect(objectName("a", "x:y")).not.toBe(objectName("a:x", "y"));
    expect(objectName("a", "b", "c")).not.toBe(objectName("a", "b:c"));
    expect(objectName("a/b", "c")).not.toBe(objectName("a", "b/c"));
  });
});

describe("Durable Object owners", () => {
  it("OrgGate: counts only for the org it belongs to", async () => {
    const gate = orgObject(env.ORG_GATE, owner);
    const bucket = [{ name: "api", limit: 5, windowSeconds: 60 }];
    expect((await gate.consume(owner, bucket)).allowed).toBe(true);
    await expect(inside(gate, (g) => g.consume(intruder, bucket))).rejects.toThrow(refused);
    await expect(inside(gate, (g) => g.acquireSlot(intruder, "executions", "h", 1, 1000))).rejects.toThrow(refused);
    await expect(inside(gate, (g) => g.releaseLeases(intruder, ["k"], "h"))).rejects.toThrow(refused);
  });

  it("ExecutionRunner: another org can neither start nor read an execution", async () => {
    const id = crypto.randomUUID();
    const runner = orgObject(env.EXECUTION_RUNNER, owner, id);
    const job = { ...stepJob(id), trigger: { kind: "manual" }, state: { ...stepJob(id).state, inputs: { secret: 1 } } } as ExecutionJob;
    await runInDurableObject(runner, (r: ExecutionRunner, ctx) => r.start(job).then(() => ctx.storage.deleteAlarm()));
    expect(await runner.snapshot(owner)).toMatchObject({ inputs: { secret: 1 } });
    expect(await runner.snapshot(intruder)).toBeUndefined();
    await expect(inside(runner, (r) => r.start({ ...job, orgId: intruder }))).rejects.toThrow(refused);
  });

  it("StepSession: another org's step finds no session", async () => {
    const id = crypto.randomUUID();
    const session = orgObject(env.STEP_SESSION, owner, id);
    const job = stepJob(id);
    expect(await session.open(job)).toMatchObject({ ok: true });
    expect(await session.step(intruder)).toBeUndefined();
    await expect(inside(session, (s) => s.open({ ...job, orgId: intruder }))).rejects.toThrow(refused);
    expect(await session.step(owner)).toMatchObject({ ok: true, view: { step: { node_id: "start" } } });
  });

  it("MessageRouter: a line claimed by one org cannot be kicked for another", async () => {
    const router = orgObject(env.MESSAGE_ROUTER, owner, "sender");
    await router.kick(owner, "sender");
    await expect(inside(router, (r) => r.kick(intruder, "sender"))).rejects.toThrow(refused);
  });

  it("ExportJob: another org can neither read nor cancel an export", async () => {
    const id = crypto.randomUUID();
    const job = orgObject(env.EXPORT_JOB, owner, id);
    const state = { id, orgId: owner, status: "completed", files: [], errorFiles: [], issues: [], exported: 0, attempts: 0, typeIndex: 0 } as unknown as ExportJobState;
    await job.start(state, 1);
    expect(await job.snapshot(intruder)).toBeUndefined();
    expect(await job.cancel(intruder)).toBe(false);
    expect(await job.snapshot(owner)).toMatchObject({ id, status: "completed" });
  });

  it("Conversation: another org reads no messages and cannot delete them", async () => {
    const conversation = orgObject(env.CONVERSATIONS, owner, "agent", crypto.randomUUID());
    expect(await conversation.messages(intruder, 10, 0)).toEqual({ messages: [], total: 0 });
    await conversation.destroy(intruder);
  });
});
