// The engine without HTTP: ports and branches, fan-out/fan-in, for-each, error
// policies, retry with backoff, timeouts, waits, and every control/data node.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { ExecutionPlan, ExecutionRun, executionOutputs, executionStatus } from "../../src/features/pipelines/engine";
import { NodeRegistry } from "../../src/features/pipelines/registry";
import { checkDefinition } from "../../src/features/pipelines/validate-definition";
import { pipelinePrincipal } from "../../src/features/pipelines/services";
import { contextFor } from "../../src/main/context";
import { NODE_FAMILIES } from "../../src/main/catalogs";
import { definition, edge, type NodeSpec, trigger } from "../support/pipelines";

const registry = new NodeRegistry(NODE_FAMILIES);

async function runDef(nodes: NodeSpec[], connections: ReturnType<typeof edge>[], inputs: unknown = {}, opts: { durableWaits?: boolean; nodeId?: string } = {}) {
  const plan = ExecutionPlan.compile(definition(nodes, connections), registry);
  const run = new ExecutionRun(plan, plan.initialState(inputs), {
    orgId: "org-engine",
    executionId: "exec-1",
    testMode: false,
    trigger: { kind: "manual", nodeId: opts.nodeId },
    services: contextFor(env, { orgId: "org-engine", shard: "SHARD_0", movingTo: null }).pipelines(pipelinePrincipal("org-engine", "p"), false),
    inlineWaitMaxMs: opts.durableWaits ? 0 : 30_000,
    durableWaits: opts.durableWaits ?? false,
  });
  await run.runToEnd();
  return { run, status: executionStatus(run), outputs: executionOutputs(run) as Record<string, Record<string, unknown>>, nodes: run.state.nodes };
}

const t = (id: string, expression: string, extra: Partial<NodeSpec> = {}): NodeSpec => ({ id, type: "data.transform", config: { expression }, ...extra });

describe("engine: flow", () => {
  it("runs a linear chain and reports per-node status and duration", async () => {
    const r = await runDef([trigger(), t("a", "n + 1"), t("b", "$ * 10")], [edge("start", "a", "event"), edge("a", "b")], { n: 1 });
    expect(r.status).toBe("completed");
    expect(r.outputs).toEqual({ b: { output: 20 } });
    expect(r.nodes.a).toMatchObject({ status: "completed", inputs: { input: { n: 1 } }, outputs: { output: 2 }, attempts: 1 });
    expect(typeof r.nodes.a?.duration_ms).toBe("number");
  });

  it("fans out and merges (fan-in) in definition order", async () => {
    const r = await runDef(
      [trigger(), t("a", "{'a': v}"), t("b", "{'b': v * 2}"), { id: "m", type: "control.merge", config: { mode: "object" } }],
      [edge("start", "a", "event"), edge("start", "b", "event"), edge("a", "m", "output", "inputs"), edge("b", "m", "output", "inputs")],
      { v: 3 },
    );
    expect(r.outputs).toEqual({ m: { output: { a: 3, b: 6 } } });
  });

  it("condition: the untaken branch is skipped and the join runs with what arrived", async () => {
    const nodes = [
      trigger(),
      { id: "if", type: "control.condition", config: { expression: "age >= 18" } },
      t("adult", "'adult'"),
      t("minor", "'minor'"),
      { id: "m", type: "control.merge", config: {} },
    ];
    const conns = [edge("start", "if", "event"), edge("if", "adult", "true"), edge("if", "minor", "false"), edge("adult", "m", "output", "inputs"), edge("minor", "m", "output", "inputs")];
    const adult = await runDef(nodes, conns, { age: 40 });
    expect(adult.nodes.minor?.status).toBe("skipped");
    expect(adult.outputs).toEqual({ m: { output: ["adult"] } });
    const minor = await runDef(nodes, conns, { age: 4 });
    expect(minor.nodes.adult?.status).toBe("skipped");
    expect(minor.outputs).toEqual({ m: { output: ["minor"] } });
  });

  it("switch routes to the first matching case, all matching cases, or default", async () => {
    const cases = [
      { port: "adt", expression: "type = 'ADT'" },
      { port: "hl7", expression: "$contains(type, 'A') or type = 'ORU'" },
    ];
    const nodes = (mode: string) => [trigger(), { id: "sw", type: "control.switch", config: { cases, mode } }, t("x", "'adt'"), t("y", "'hl7'"), t("z", "'other'")];
    const conns = [edge("start", "sw", "event"), edge("sw", "x", "adt"), edge("sw", "y", "hl7"), edge("sw", "z", "default")];
    expect((await runDef(nodes("first"), conns, { type: "ADT" })).outputs).toEqual({ x: { output: "adt" } });
    expect((await runDef(nodes("all"), conns, { type: "ADT" })).outputs).toEqual({ x: { output: "adt" }, y: { output: "hl7" } });
    expect((await runDef(nodes("first"), conns, { type: "SIU" })).outputs).toEqual({ z: { output: "other" } });
  });

  it("for-each runs the body per item and collects results; empty input goes to empty", async () => {
    const body = {
      nodes: [
        { id: "item", type: "control.manual_trigger", config: {} },
        { id: "double", type: "data.transform", config: { expression: "v * 2" } },
      ],
      connections: [edge("item", "double", "event")],
    };
    const nodes = [trigger(), { id: "loop", type: "control.for_each", config: { items: "items", body } }, t("sum", "$sum(double.output)")];
    const r = await runDef(nodes, [edge("start", "loop", "event"), edge("loop", "sum", "results")], { items: [{ v: 1 }, { v: 2 }, { v: 3 }] });
    expect(r.nodes.loop?.outputs?.results).toEqual([{ double: { output: 2 } }, { double: { output: 4 } }, { double: { output: 6 } }]);
    expect(r.outputs).toEqual({ sum: { output: 12 } });
    const empty = await runDef(nodes, [edge("start", "loop", "event"), edge("loop", "sum", "results")], { items: [] });
    expect(empty.nodes.loop?.outputs).toEqual({ empty: { items: [] } });
    expect(empty.nodes.sum?.status).toBe("skipped");
  });

  it("only the named trigger fires when a trigger node is given", async () => {
    const r = await runDef(
      [trigger("a"), { id: "b", type: "control.webhook_trigger" }, t("fromA", "'a'"), t("fromB", "'b'")],
      [edge("a", "fromA", "event"), edge("b", "fromB", "event")],
      {},
      { nodeId: "b" },
    );
    expect(r.nodes.a?.status).toBe("skipped");
    expect(r.outputs).toEqual({ fromB: { output: "b" } });
  });
});

describe("engine: errors, retries, timeouts, waits", () => {
  const failing = (extra: Partial<NodeSpec>): NodeSpec => t("bad", "$error('boom')", extra);

  it("on_error stop fails the execution and runs nothing after", async () => {
    const r = await runDef([trigger(), failing({}), t("after", "1")], [edge("start", "bad", "event"), edge("bad", "after")]);
    expect(r.status).toBe("failed");
    expect(r.run.state.stopped_by).toMatchObject({ code: "EXPRESSION_FAILED", node_id: "bad", node_type: "data.transform" });
    expect(r.nodes.after?.status).toBe("pending");
  });

  it("on_error continue marks the node failed, skips its dependents and runs the other branches", async () => {
    const r = await runDef(
      [trigger(), failing({ on_error: "continue" }), t("after", "1"), t("other", "'ok'")],
      [edge("start", "bad", "event"), edge("bad", "after"), edge("start", "other", "event")],
    );
    expect(r.status).toBe("completed");
    expect(r.nodes.bad?.status).toBe("failed");
    expect(r.nodes.after?.status).toBe("skipped");
    expect(r.outputs).toEqual({ other: { output: "ok" } });
  });

  it("on_error route sends the error to the error port", async () => {
    const r = await runDef(
      [trigger(), failing({ on_error: "route" }), t("ok", "'fine'"), t("handler", "'handled ' & code")],
      [edge("start", "bad", "event"), edge("bad", "ok"), edge("bad", "handler", "error")],
    );
    expect(r.status).toBe("completed");
    expect(r.nodes.ok?.status).toBe("skipped");
    expect(r.outputs).toEqual({ handler: { output: "handled EXPRESSION_FAILED" } });
  });

  it("retries with backoff until attempts run out", async () => {
    const started = Date.now();
    const r = await runDef([trigger(), failing({ retry: { max_attempts: 3, backoff_ms: 20, backoff_factor: 2 } })], [edge("start", "bad", "event")]);
    expect(r.nodes.bad?.attempts).toBe(3);
    expect(r.nodes.bad?.logs.filter((l) => l.level === "error")).toHaveLength(3);
    expect(Date.now() - started).toBeGreaterThanOrEqual(60); // 20 + 40 ms of backoff
  });

  it("a retry succeeds when a later attempt does; an HTTP error status is routed, not retried", async () => {
    const { vi } = await import("vitest");
    const spy = vi
      .spyOn(globalThis, "fetch")
      .mockRejectedValueOnce(new Error("connection reset"))
      .mockResolvedValueOnce(Response.json({ ok: true }))
      .mockResolvedValueOnce(new Response("busy", { status: 503 }));
    try {
      const nodes = [trigger(), { id: "call", type: "output.http_request", config: { url: "https://hooks.test/x", method: "POST" }, retry: { max_attempts: 2, backoff_ms: 1 } }, t("check", "body")];
      const conns = [edge("start", "call", "event"), edge("call", "check", "response")];
      const ok = await runDef(nodes, conns, { a: 1 });
      expect(ok.nodes.call).toMatchObject({ status: "completed", attempts: 2 });
      expect(ok.outputs).toEqual({ check: { output: { ok: true } } });
      const busy = await runDef(nodes, conns, { a: 1 });
      expect(busy.nodes.call?.attempts).toBe(1);
      expect(busy.nodes.call?.outputs?.http_error).toMatchObject({ status: 503 });
      expect(busy.nodes.check?.status).toBe("skipped");
    } finally {
      spy.mockRestore();
    }
  });

  it("a per-node timeout aborts a hung attempt with NODE_TIMEOUT", async () => {
    const { vi } = await import("vitest");
    let aborted = false;
    const spy = vi.spyOn(globalThis, "fetch").mockImplementation(
      (_input, init) =>
        new Promise((_, reject) => {
          init?.signal?.addEventListener("abort", () => {
            aborted = true;
            reject(new Error("aborted"));
          });
        }),
    );
    try {
      const r = await runDef([trigger(), { id: "slow", type: "output.http_request", config: { url: "https://hangs.test/", method: "GET" }, timeout_ms: 30 }], [edge("start", "slow", "event")]);
      expect(r.status).toBe("failed");
      expect(r.nodes.slow?.error).toMatchObject({ code: "NODE_TIMEOUT", node_type: "output.http_request" });
      expect(aborted).toBe(true);
    } finally {
      spy.mockRestore();
    }
  });

  it("delay waits inline in sync runs and parks as waiting in durable runs", async () => {
    const nodes = [trigger(), { id: "wait", type: "control.delay", config: { ms: 30 } }, t("after", "'done'")];
    const conns = [edge("start", "wait", "event"), edge("wait", "after")];
    const inline = await runDef(nodes, conns);
    expect(inline.status).toBe("completed");
    expect(inline.nodes.wait?.duration_ms).toBeGreaterThanOrEqual(25);
    const parked = await runDef(nodes, conns, {}, { durableWaits: true });
    expect(parked.status).toBe("waiting");
    expect(parked.nodes.wait?.wait_until).toBeGreaterThan(Date.now() - 5);
  });
});

describe("engine: data nodes", () => {
  it("filter splits arrays into kept and dropped", async () => {
    const r = await runDef([trigger(), { id: "f", type: "data.filter", config: { predicate: "status = 'final'" } }], [edge("start", "f", "event")], [{ status: "final" }, { status: "draft" }]);
    expect(r.nodes.f?.outputs).toEqual({ kept: [{ status: "final" }], dropped: [{ status: "draft" }] });
  });

  it("set fields writes nested paths and can drop the rest", async () => {
    const keep = await runDef([trigger(), { id: "s", type: "data.set_fields", config: { fields: { "meta.source": "'lab'", total: "a + b" } } }], [edge("start", "s", "event")], { a: 1, b: 2 });
    expect(keep.outputs).toEqual({ s: { output: { a: 1, b: 2, meta: { source: "lab" }, total: 3 } } });
    const only = await runDef([trigger(), { id: "s", type: "data.set_fields", config: { fields: { total: "a + b" }, keep_others: false } }], [edge("start", "s", "event")], { a: 1, b: 2 });
    expect(only.outputs).toEqual({ s: { output: { total: 3 } } });
  });

  it("FHIRPath evaluates with the R4 model; empty results go to empty", async () => {
    const patient = { resourceType: "Patient", name: [{ given: ["Ada", "K"], family: "Lovelace" }], deceasedBoolean: false };
    const r = await runDef([trigger(), { id: "fp", type: "data.fhirpath", config: { expression: "Patient.name.given.first()" } }], [edge("start", "fp", "event", "resource")], patient);
    expect(r.nodes.fp?.outputs).toEqual({ result: ["Ada"] });
    const choice = await runDef([trigger(), { id: "fp", type: "data.fhirpath", config: { expression: "Patient.deceased" } }], [edge("start", "fp", "event", "resource")], patient);
    expect(choice.nodes.fp?.outputs).toEqual({ result: [false] });
    const none = await runDef([trigger(), { id: "fp", type: "data.fhirpath", config: { expression: "Patient.birthDate" } }], [edge("start", "fp", "event", "resource")], patient);
    expect(none.nodes.fp?.outputs).toEqual({ empty: patient });
  });

  it("refuses a FHIRPath expression that does not parse when the definition is checked", () => {
    const def = { nodes: [{ id: "start", type: "control.manual_trigger", config: {} }, { id: "fp", type: "data.fhirpath", config: { expression: "Patient.name.(" } }], connections: [{ from: { node: "start", port: "event" }, to: { node: "fp", port: "resource" } }] };
    expect(() => checkDefinition(def, registry)).toThrow(expect.objectContaining({ code: "VALIDATION_FAILED", details: [expect.objectContaining({ path: "nodes.fp.config.expression", message: expect.stringMatching(/^Invalid FHIRPath/) })] }));
  });

  it("JSON Schema validate routes valid and invalid with errors", async () => {
    const node = { id: "v", type: "data.json_schema_validate", config: { schema: { type: "object", required: ["id"], properties: { id: { type: "string" } } } } };
    const ok = await runDef([trigger(), node], [edge("start", "v", "event")], { id: "x" });
    expect(ok.nodes.v?.outputs).toEqual({ valid: { id: "x" } });
    const bad = await runDef([trigger(), node], [edge("start", "v", "event")], { id: 3 });
    const invalid = bad.nodes.v?.outputs?.invalid as { errors: { instance_location: string }[] };
    expect(invalid.errors.some((e) => e.instance_location === "#/id")).toBe(true);
  });

  it("concept map translates codes, follows unmapped rules and routes misses", async () => {
    const conceptMap = {
      resourceType: "ConceptMap",
      group: [{ source: "urn:lab", target: "http://loinc.org", element: [{ code: "GLU", target: [{ code: "2345-7", display: "Glucose", equivalence: "equivalent" }] }] }],
    };
    const node = { id: "cm", type: "data.concept_map", config: { concept_map: conceptMap, system_expression: "system" } };
    const hit = await runDef([trigger(), node], [edge("start", "cm", "event")], { system: "urn:lab", code: "GLU" });
    expect(hit.nodes.cm?.outputs?.mapped).toMatchObject({ targets: [{ system: "http://loinc.org", code: "2345-7", equivalence: "equivalent" }] });
    const miss = await runDef([trigger(), node], [edge("start", "cm", "event")], { system: "urn:lab", code: "XXX" });
    expect(miss.nodes.cm?.outputs).toEqual({ unmapped: { system: "urn:lab", code: "XXX" } });
  });

  it("log writes to the node's logs and respond sets the execution outputs", async () => {
    const r = await runDef(
      [trigger(), { id: "log", type: "output.log", config: { level: "warn", message: "'patient ' & id" } }, { id: "out", type: "output.respond", config: { expression: "{'id': id}" } }],
      [edge("start", "log", "event"), edge("log", "out")],
      { id: "p1" },
    );
    expect(r.nodes.log?.logs).toContainEqual(expect.objectContaining({ level: "warn", message: "patient p1" }));
    expect(r.outputs).toEqual({ id: "p1" });
  });
});
