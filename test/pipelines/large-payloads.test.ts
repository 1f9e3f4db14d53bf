// Pipeline-side values larger than a D1 row or a Durable Object storage value (2 MB each):
// definitions, tool schemas and credentials get a 400 naming their limit; run inputs and node
// outputs of several MB are legitimate and go through async runs and step sessions, which keep
// no storage value over the limit.
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { CHUNK_CHARS, getChunkedJson, putChunkedJson } from "../../src/platform/durable-objects/chunked-json";
import { MAX_DEFINITION_BYTES } from "../../src/features/pipelines/definition";
import { MAX_ERROR_MESSAGE_CHARS } from "../../src/features/pipelines/engine";
import { objectName, orgObject } from "../../src/platform/durable-objects/object-names";
import { MAX_TOOL_PARAMETERS_BYTES } from "../../src/features/agents/tools/custom/definition";
import { createPipeline, definition, driveExecution, edge, trigger } from "../support/pipelines";
import { type Tenant, createTenant } from "../support/tenants";

const THREE_MIB = 3 * 1024 * 1024;
const RUN_INPUT_CHARS = 2_200_000;
/** What a SQLite-backed Durable Object accepts as one value. */
const DO_MAX_VALUE_BYTES = 2 * 1024 * 1024;

async function expectLimit(res: Response, limit: number) {
  expect(res.status).toBe(400);
  const body = (await res.json()) as { error: { code: string; details: { message: string }[] } };
  expect(body.error.code).toBe("VALIDATION_FAILED");
  expect(body.error.details.map((d) => d.message).join(" ")).toContain(`the limit is ${limit} bytes`);
}

/** The largest value in an object's storage, as the runtime serialises it (2 bytes per string character at most). */
async function largestStoredValue<T extends Rpc.DurableObjectBranded | undefined>(ns: DurableObjectNamespace<T>, name: string): Promise<number> {
  return runInDurableObject(ns.get(ns.idFromName(name)), async (_instance, state) => {
    let largest = 0;
    for (const value of (await state.storage.list()).values()) {
      const size = typeof value === "string" ? value.length * 2 : (JSON.stringify(value)?.length ?? 0) * 2;
      largest = Math.max(largest, size);
    }
    return largest;
  });
}

const passThrough = definition([trigger(), { id: "copy", type: "data.transform", config: { expression: "$" } }], [edge("start", "copy", "event")]);

describe("large pipeline values", () => {
  it("answers 400 naming the limit to a 3 MiB definition, on create and update", async () => {
    const t = await createTenant();
    const schema = { type: "object", description: "d".repeat(THREE_MIB) };
    const big = definition([trigger(), { id: "check", type: "data.json_schema_validate", config: { schema } }], [edge("start", "check", "event")]);
    await expectLimit(await t.fetch("/api/pipelines", { method: "POST", json: { name: "big", definition: big } }), MAX_DEFINITION_BYTES);
    const id = await createPipeline(t, passThrough, { deploy: false });
    await expectLimit(await t.fetch(`/api/pipelines/${id}`, { method: "PUT", json: { name: "big", definition: big } }), MAX_DEFINITION_BYTES);
  });

  it("answers 400 naming the limit to a 3 MiB tool schema and to 3 MiB of connector credentials", async () => {
    const t = await createTenant();
    const parameters = { type: "object", description: "p".repeat(THREE_MIB) };
    const pipelineId = await createPipeline(t, passThrough);
    const tool = { name: "big_tool", description: "d", parameters, implementation: { kind: "pipeline", pipeline_id: pipelineId } };
    await expectLimit(await t.fetch("/api/tools", { method: "POST", json: tool }), MAX_TOOL_PARAMETERS_BYTES);
    const credentials = Object.fromEntries(Array.from({ length: 400 }, (_, i) => [`k${i}`, "c".repeat(8000)]));
    const connector = { name: "c", type: "fhir", endpoint: "https://ehr.test", auth: { kind: "bearer" }, credentials: { token: "t", ...credentials } };
    await expectLimit(await t.fetch("/api/connectors", { method: "POST", json: connector }), 64 * 1024);
  });

  // 2.2 MB: over a storage value's 2 MB, and the five copies of it the run state holds (the input,
  // the trigger's event in and out, the node's input and output) stay within the 12 Mi characters
  // of run state the test configuration allows.
  it("runs a 2.2 MB input through an async execution; no storage value is over 2 MB", async () => {
    const t = await createTenant();
    const id = await createPipeline(t, passThrough);
    const text = "x".repeat(RUN_INPUT_CHARS);
    const started = await t.fetch("/api/execute", { method: "POST", json: { pipeline_id: id, inputs: { text }, async: true } });
    expect(started.status).toBe(202);
    const { execution_id } = (await started.json()) as { execution_id: string };
    expect(await largestStoredValue(env.EXECUTION_RUNNER, objectName(t.orgId, execution_id))).toBeLessThanOrEqual(DO_MAX_VALUE_BYTES);
    const record = await driveExecution(t, execution_id);
    expect(record.status).toBe("completed");
    expect(record.outputs.copy?.output).toEqual({ text });
  });

  it("steps a 2.2 MB input through a step session; no storage value is over 2 MB", async () => {
    const t = await createTenant();
    const id = await createPipeline(t, passThrough);
    const text = "y".repeat(RUN_INPUT_CHARS);
    const opened = await t.fetch("/api/execute/step", { method: "POST", json: { pipeline_id: id, inputs: { text } } });
    expect(opened.status).toBe(201);
    const { session_id } = (await opened.json()) as { session_id: string };
    const step = async (s: Tenant) => (await (await s.fetch(`/api/execute/step/${session_id}`, { method: "POST", json: {} })).json()) as { status: string; outputs?: { copy: { output: { text: string } } } };
    expect((await step(t)).status).toBe("waiting");
    expect(await largestStoredValue(env.STEP_SESSION, objectName(t.orgId, session_id))).toBeLessThanOrEqual(DO_MAX_VALUE_BYTES);
    const done = await step(t);
    expect(done.status).toBe("completed");
    expect(done.outputs?.copy.output.text).toBe(text);
    const stub = orgObject(env.STEP_SESSION, t.orgId, session_id);
    expect(await runDurableObjectAlarm(stub)).toBe(true);
  });
});

describe("large node failures", () => {
  it("records a node error whose message quotes a 3 MiB input, shortened", async () => {
    const t = await createTenant();
    // fhir.bundle_split names the resourceType it got instead of a Bundle: here 3 MiB of it.
    const id = await createPipeline(t, definition([trigger(), { id: "split", type: "fhir.bundle_split", config: {} }], [edge("start", "split", "event", "bundle")]));
    const res = await t.fetch("/api/execute", { method: "POST", json: { pipeline_id: id, inputs: { resourceType: "e".repeat(THREE_MIB) } } });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { status: string; execution_id: string; error: { code: string; message: string } };
    expect(body).toMatchObject({ status: "failed", error: { code: "NOT_A_BUNDLE" } });
    expect(body.error.message.length).toBeLessThanOrEqual(MAX_ERROR_MESSAGE_CHARS + 1);
    const listed = (await (await t.fetch(`/api/executions?pipeline_id=${id}`)).json()) as { executions: { id: string; status: string }[] };
    expect(listed.executions.map((e) => e.status)).toEqual(["failed"]);
  });
});

describe("chunked JSON in Durable Object storage", () => {
  it("splits a large value, reads it back, drops stale chunks when it shrinks, and reads a value stored whole", async () => {
    const stub = env.STEP_SESSION.get(env.STEP_SESSION.idFromName(`chunks-${crypto.randomUUID()}`));
    await runInDurableObject(stub, async (_instance, state) => {
      const big = { text: "z".repeat(3 * CHUNK_CHARS), emoji: "😀".repeat(1000) };
      await putChunkedJson(state.storage, "v", big);
      expect(await getChunkedJson(state.storage, "v")).toEqual(big);
      expect([...(await state.storage.list()).keys()].sort()).toEqual(["v#0", "v#1", "v#2", "v#3", "v#chunks"]);
      await putChunkedJson(state.storage, "v", { small: true });
      expect(await getChunkedJson(state.storage, "v")).toEqual({ small: true });
      expect([...(await state.storage.list()).keys()].sort()).toEqual(["v#0", "v#chunks"]);
      await state.storage.put("legacy", { whole: 1 });
      expect(await getChunkedJson(state.storage, "legacy")).toEqual({ whole: 1 });
      await putChunkedJson(state.storage, "legacy", { whole: 2 });
      expect(await state.storage.get("legacy")).toBeUndefined();
      await state.storage.deleteAll();
    });
  });
});
