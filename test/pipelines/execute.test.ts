// Executing pipelines through the API: sync and async results, execution
// records (large ones in R2), test mode, the concurrency cap, retry from a
// node, step sessions, stats, and tenant isolation of all of them.
import { runDurableObjectAlarm } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it, vi } from "vitest";
import { useMemoryFhir } from "../support/memory-fhir";
import { createPipeline, definition, driveExecution, edge, type ExecBody, run, trigger } from "../support/pipelines";
import { orgObject } from "../../src/platform/durable-objects/object-names";
import { createTenant } from "../support/tenants";

const fhirFor = useMemoryFhir();

const t = (id: string, expression: string) => ({ id, type: "data.transform", config: { expression } });
const simple = definition([trigger(), t("a", "n + 1"), t("b", "$ * 2")], [edge("start", "a", "event"), edge("a", "b")]);

describe("execute", () => {
  it("sync: returns execution_id, completed, outputs and node_results; the record keeps per-node detail", async () => {
    const tenant = await createTenant();
    const id = await createPipeline(tenant, simple);
    const { res, body } = await run(tenant, id, { n: 1 });
    expect(res.status).toBe(200);
    expect(body).toMatchObject({ status: "completed", outputs: { b: { output: 4 } } });
    expect(body.node_results.a).toMatchObject({ status: "completed", attempts: 1 });
    expect(Number.isInteger(body.node_results.b?.duration_ms)).toBe(true);

    const record = (await (await tenant.fetch(`/api/executions/${body.execution_id}`)).json()) as Record<string, unknown> & { nodes: Record<string, { inputs: unknown; outputs: unknown; logs: unknown[] }> };
    expect(record).toMatchObject({ status: "completed", pipeline_id: id, pipeline_version: 1, trigger: "manual", mode: "sync", inputs: { n: 1 } });
    expect(record.nodes.b).toMatchObject({ inputs: { input: 2 }, outputs: { output: 4 } });
  });

  it("async: answers running at once and completes durably through its Durable Object", async () => {
    const tenant = await createTenant();
    const id = await createPipeline(tenant, simple);
    const { res, body } = await run(tenant, id, { n: 5 }, { async: true });
    expect(res.status).toBe(202);
    expect(body).toMatchObject({ status: "running" });
    const done = await driveExecution(tenant, body.execution_id);
    expect(done).toMatchObject({ status: "completed", mode: "async", outputs: { b: { output: 12 } } });
  });

  it("needs a deployed pipeline unless test_mode; failures are recorded with code, message and node type", async () => {
    const tenant = await createTenant();
    const draft = await createPipeline(tenant, simple, { deploy: false });
    const refused = await tenant.fetch("/api/execute", { method: "POST", json: { pipeline_id: draft, inputs: {} } });
    expect(refused.status).toBe(409);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe("PIPELINE_NOT_DEPLOYED");
    const missing = await tenant.fetch("/api/execute", { method: "POST", json: { pipeline_id: crypto.randomUUID(), inputs: {} } });
    expect(((await missing.json()) as { error: { code: string } }).error.code).toBe("PIPELINE_NOT_FOUND");

    const failing = await createPipeline(tenant, definition([trigger(), t("bad", "$error('no good')")], [edge("start", "bad", "event")]));
    const { body } = await run(tenant, failing);
    expect(body).toMatchObject({ status: "failed", error: { code: "EXPRESSION_FAILED", node_id: "bad", node_type: "data.transform" } });
    // JSONata throws plain objects, not Errors: their message is kept, never "[object Object]".
    expect((body.error as { message?: string } | undefined)?.message).toMatch(/no good$/);
    const list = (await (await tenant.fetch(`/api/executions?status=failed&pipeline_id=${failing}`)).json()) as { executions: { error: { code: string; node_type: string } }[]; total_count: number };
    expect(list.total_count).toBe(1);
    expect(list.executions[0]?.error).toMatchObject({ code: "EXPRESSION_FAILED", node_type: "data.transform" });
    // The time filter (the console's executions page): started at or after `since`, at or before `until`.
    const count = async (q: string) => ((await (await tenant.fetch(`/api/executions?pipeline_id=${failing}&${q}`)).json()) as { total_count: number }).total_count;
    const hourAgo = new Date(Date.now() - 3_600_000).toISOString();
    const inAnHour = new Date(Date.now() + 3_600_000).toISOString();
    expect(await count(`since=${hourAgo}&until=${inAnHour}`)).toBe(1);
    expect(await count(`since=${inAnHour}`)).toBe(0);
    expect(await count(`until=${hourAgo}`)).toBe(0);
    expect((await tenant.fetch(`/api/executions?since=yesterday`)).status).toBe(400);
  });

  it("stores large records in R2 and serves them back", async () => {
    const tenant = await createTenant();
    const id = await createPipeline(tenant, definition([trigger(), t("big", "$pad('', 200000, 'x')")], [edge("start", "big", "event")]));
    const { body } = await run(tenant, id);
    const { executions } = await import("../../src/features/pipelines/tables");
    const { eq } = await import("drizzle-orm");
    const row = await tenant.ctx.db.select().from(executions).where(eq(executions.id, body.execution_id)).get();
    expect(row?.record).toBeNull();
    expect(row?.recordKey).toContain(tenant.orgId);
    expect(await env.BLOBS.head(row?.recordKey as string)).not.toBeNull();
    const record = (await (await tenant.fetch(`/api/executions/${body.execution_id}`)).json()) as { outputs: { big: { output: string } } };
    expect(record.outputs.big.output).toHaveLength(200000);
  });

  it("test_mode: FHIR and HTTP writes are reported, not made; reads still happen", async () => {
    const tenant = await createTenant();
    const store = fhirFor(tenant.orgId);
    await store.update({ resourceType: "Patient", id: "known", gender: "female" });
    const writesBefore = store.writes;
    const id = await createPipeline(
      tenant,
      definition(
        [
          trigger(),
          { id: "read", type: "fhir.read", config: { resource_type: "Patient", id: "known" } },
          { id: "make", type: "data.transform", config: { expression: "{'resourceType': 'Observation', 'status': 'final', 'subject': {'reference': 'Patient/' & id}}" } },
          { id: "create", type: "fhir.create", config: {} },
          { id: "upsert", type: "fhir.upsert", config: { query: "identifier=urn:x|1" } },
          { id: "notify", type: "output.http_request", config: { url: "https://example.org/hook", method: "POST" } },
        ],
        [edge("start", "read", "event"), edge("read", "make", "resource"), edge("make", "create", "output", "resource"), edge("make", "upsert", "output", "resource"), edge("create", "notify", "resource")],
      ),
      { deploy: false },
    );
    const spy = vi.spyOn(globalThis, "fetch");
    try {
      const { body } = await run(tenant, id, {}, { test_mode: true });
      expect(body.status).toBe("completed");
      expect(body.node_results.read?.status).toBe("completed");
      expect(body.node_results.create?.would_write?.[0]).toMatchObject({ target: "fhir:create", payload: { resourceType: "Observation", subject: { reference: "Patient/known" } } });
      expect(body.node_results.upsert?.would_write?.[0]?.target).toBe("fhir:upsert?identifier=urn:x|1");
      expect(body.node_results.notify?.would_write?.[0]).toMatchObject({ target: "http:POST https://example.org/hook" });
      expect(spy).not.toHaveBeenCalled();
      expect(store.writes).toBe(writesBefore);
      const record = (await (await tenant.fetch(`/api/executions/${body.execution_id}`)).json()) as { test_mode: boolean };
      expect(record.test_mode).toBe(true);
    } finally {
      spy.mockRestore();
    }
  });

  it("caps concurrent executions per organization with 429", async () => {
    const tenant = await createTenant({ limits: { concurrentExecutions: 2 } });
    const id = await createPipeline(tenant, definition([trigger(), { id: "wait", type: "control.delay", config: { ms: 60_000 } }], [edge("start", "wait", "event")]));
    expect((await run(tenant, id, {}, { async: true })).res.status).toBe(202);
    expect((await run(tenant, id, {}, { async: true })).res.status).toBe(202);
    const third = await run(tenant, id, {}, { async: true });
    expect(third.res.status).toBe(429);
    expect(third.res.headers.get("retry-after")).not.toBeNull();
    expect((await run(tenant, id)).res.status).toBe(429); // sync runs count too
    // Another organization is not affected.
    const other = await createTenant({ limits: { concurrentExecutions: 2 } });
    const otherId = await createPipeline(other, simple);
    expect((await run(other, otherId, { n: 1 })).res.status).toBe(200);
  });

  it("retry from a node reuses upstream outputs and runs only the node and what follows", async () => {
    const tenant = await createTenant();
    const store = fhirFor(tenant.orgId);
    const id = await createPipeline(
      tenant,
      definition(
        [
          trigger(),
          { id: "create", type: "fhir.create", config: {} },
          { id: "lookup", type: "fhir.read", config: { resource_type: "Observation", id: "obs-1" } },
          t("done", "status"),
        ],
        [edge("start", "create", "event", "resource"), edge("create", "lookup", "resource", "input"), edge("lookup", "done", "resource")],
      ),
    );
    const first = await run(tenant, id, { resourceType: "Patient", gender: "male" });
    expect(first.body).toMatchObject({ status: "failed", error: { node_id: "lookup", code: "NOT_FOUND" } });
    const patients = () => [...store.resources.values()].filter((r) => r.resourceType === "Patient").length;
    expect(patients()).toBe(1);

    await store.update({ resourceType: "Observation", id: "obs-1", status: "final", code: { text: "x" } });
    const retry = await tenant.fetch("/api/execute/retry", { method: "POST", json: { execution_id: first.body.execution_id, node_id: "lookup" } });
    const body = (await retry.json()) as ExecBody & { retry_of: string };
    expect(body).toMatchObject({ status: "completed", retry_of: first.body.execution_id, outputs: { done: { output: "final" } } });
    expect(body.node_results.create?.status).toBe("reused");
    expect(body.node_results.start?.status).toBe("reused");
    expect(patients()).toBe(1); // the create was not run again
    const record = (await (await tenant.fetch(`/api/executions/${body.execution_id}`)).json()) as { retry_of: string; retry_from_node: string; trigger: string };
    expect(record).toMatchObject({ retry_of: first.body.execution_id, retry_from_node: "lookup", trigger: "retry" });

    // Inputs given for the node replace what upstream produced.
    const overridden = (await (await tenant.fetch("/api/execute/retry", { method: "POST", json: { execution_id: first.body.execution_id, node_id: "done", inputs: { input: { status: "amended" } } } })).json()) as ExecBody;
    expect(overridden.outputs).toEqual({ done: { output: "amended" } });
    expect((await tenant.fetch("/api/execute/retry", { method: "POST", json: { execution_id: first.body.execution_id, node_id: "nope" } })).status).toBe(404);
  });

  it("step session: walks node by node, accepts overridden outputs, completes", async () => {
    const tenant = await createTenant();
    const id = await createPipeline(tenant, simple);
    const opened = await tenant.fetch("/api/execute/step", { method: "POST", json: { pipeline_id: id, inputs: { n: 1 } } });
    expect(opened.status).toBe(201);
    const session = (await opened.json()) as { session_id: string; current_node: string; status: string };
    expect(session).toMatchObject({ current_node: "start", status: "waiting" });
    const step = async (json: unknown = {}) => (await (await tenant.fetch(`/api/execute/step/${session.session_id}`, { method: "POST", json })).json()) as { status: string; current_node: string | null; step: { node_id: string; status: string; outputs: unknown }; outputs?: unknown };

    const s1 = await step();
    expect(s1).toMatchObject({ status: "waiting", current_node: "a", step: { node_id: "start", status: "completed", outputs: { event: { n: 1 } } } });
    const s2 = await step({ node_outputs: { output: 20 } });
    expect(s2).toMatchObject({ current_node: "b", step: { node_id: "a", outputs: { output: 20 } } });
    const s3 = await step();
    expect(s3).toMatchObject({ status: "completed", current_node: null, step: { node_id: "b", outputs: { output: 40 } }, outputs: { b: { output: 40 } } });

    // Sessions expire: the alarm set at each step deletes the session's state.
    const stub = orgObject(env.STEP_SESSION, tenant.orgId, session.session_id);
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    const expired = await tenant.fetch(`/api/execute/step/${session.session_id}`, { method: "POST", json: {} });
    expect(expired.status).toBe(404);

    const other = await createTenant();
    const foreign = await other.fetch(`/api/execute/step/${session.session_id}`, { method: "POST", json: {} });
    expect(foreign.status).toBe(404);
    expect(((await foreign.json()) as { error: { code: string } }).error.code).toBe("STEP_SESSION_NOT_FOUND");
  });

  it("stats: success rate, average duration and errors by node type, per pipeline", async () => {
    const tenant = await createTenant();
    const ok = await createPipeline(tenant, simple);
    const bad = await createPipeline(tenant, definition([trigger(), t("bad", "$error('x')")], [edge("start", "bad", "event")]));
    await run(tenant, ok, { n: 1 });
    await run(tenant, ok, { n: 2 });
    await run(tenant, bad);
    await run(tenant, ok, { n: 1 }, { test_mode: true }); // test runs are left out unless asked for
    const stats = (await (await tenant.fetch("/api/stats")).json()) as { total_executions: number; success_rate: number; average_duration_ms: number; error_distribution: Record<string, { count: number; codes: Record<string, number> }> };
    expect(stats.total_executions).toBe(3);
    expect(stats.success_rate).toBeCloseTo(2 / 3);
    expect(stats.average_duration_ms).toBeGreaterThanOrEqual(0);
    expect(stats.error_distribution).toEqual({ "data.transform": { count: 1, codes: { EXPRESSION_FAILED: 1 } } });
    const perPipeline = (await (await tenant.fetch(`/api/stats?pipeline_id=${ok}&include_test=true`)).json()) as { total_executions: number; success_rate: number };
    expect(perPipeline).toMatchObject({ total_executions: 3, success_rate: 1 });
    const future = (await (await tenant.fetch(`/api/stats?since=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`)).json()) as { total_executions: number; success_rate: null };
    expect(future).toMatchObject({ total_executions: 0, success_rate: null });
  });

  it("isolates tenants: executions, records, retries and stats of another org are invisible", async () => {
    const a = await createTenant();
    const b = await createTenant();
    const id = await createPipeline(a, simple);
    const { body } = await run(a, id, { n: 1 });
    expect((await b.fetch(`/api/executions/${body.execution_id}`)).status).toBe(404);
    expect(((await (await b.fetch("/api/executions")).json()) as { total_count: number }).total_count).toBe(0);
    expect((await b.fetch("/api/execute/retry", { method: "POST", json: { execution_id: body.execution_id, node_id: "a" } })).status).toBe(404);
    expect((await b.fetch("/api/execute/step", { method: "POST", json: { pipeline_id: id, inputs: {} } })).status).toBe(404);
    expect(((await (await b.fetch("/api/stats")).json()) as { total_executions: number }).total_executions).toBe(0);
  });
});
