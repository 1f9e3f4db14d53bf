// The copilot's deterministic endpoints on real definitions (including ones with real
// mistakes), real execution records and real agent conversations; no model needed.
import { beforeAll, describe, expect, it } from "vitest";
import { giveModel, installAgentFakes } from "../support/agent-fakes";
import { lastOf } from "../support/fake-openai";
import { turnTotals } from "../../src/features/agents/turn-log";
import { createPipeline, definition, edge, run, trigger } from "../support/pipelines";
import { createKey, authedFetch, createTenant, type Tenant } from "../support/tenants";
import { withinOneMinuteWindow } from "../support/minute-window";

beforeAll(installAgentFakes);

interface Report {
  valid: boolean;
  errors: { node_id: string | null; message: string }[];
  warnings: { node_id: string | null; message: string }[];
}

const post = async <T>(t: Tenant | { fetch: Tenant["fetch"] }, path: string, json: unknown, status = 200): Promise<T> => {
  const res = await t.fetch(`/api/copilot${path}`, { method: "POST", json });
  const body = await res.text();
  expect(res.status, body).toBe(status);
  return JSON.parse(body) as T;
};

/** A working pipeline: trigger → transform → log. */
const good = definition(
  [trigger(), { id: "shape", type: "data.transform", config: { expression: '{"id": id}' } }, { id: "log", type: "output.log" }],
  [edge("start", "shape", "event"), edge("shape", "log")],
);

describe("validate/pipeline", () => {
  it("accepts a valid definition", async () => {
    const t = await createTenant();
    const r = await post<Report>(t, "/validate/pipeline", { definition: good });
    expect(r).toEqual({ valid: true, errors: [], warnings: [] });
  });

  it("names the node of each mistake: unknown type, missing port, bad config, cycle, unreachable", async () => {
    const t = await createTenant();
    const bad = definition(
      [
        trigger(),
        { id: "typo", type: "data.transfrom" },
        { id: "shape", type: "data.transform", config: { expression: "(((" } },
        { id: "a", type: "output.log" },
        { id: "b", type: "output.log" },
        { id: "island", type: "output.log" },
      ],
      [edge("start", "typo", "event"), edge("start", "a", "nope"), edge("a", "b"), edge("b", "a")],
    );
    const r = await post<Report>(t, "/validate/pipeline", { definition: bad });
    expect(r.valid).toBe(false);
    const byNode = (id: string) => r.errors.filter((e) => e.node_id === id).map((e) => e.message).join(" | ");
    expect(byNode("typo")).toMatch(/Unknown node type data.transfrom/);
    expect(byNode("shape")).toMatch(/Invalid JSONata/);
    expect(byNode("start")).toMatch(/no output port nope/);
    expect(r.errors.some((e) => /Cycle/.test(e.message))).toBe(true);
    expect(byNode("island")).toMatch(/unreachable/);
  });

  it("warns: unconfigured required field, output going nowhere, network node without error route, test-mode write feeding others", async () => {
    const t = await createTenant();
    const def = definition(
      [
        trigger(),
        { id: "route", type: "control.condition", config: { expression: "active" } },
        { id: "post", type: "output.http_request", config: { url: "https://ehr.example.net/hook", method: "POST" } },
        { id: "after", type: "output.log" },
        { id: "lonely", type: "control.manual_trigger" },
        { id: "shape", type: "data.transform", config: { expression: "TODO" } },
      ],
      [edge("start", "route", "event"), edge("route", "post", "true"), edge("post", "after", "response"), edge("after", "shape")],
    );
    const r = await post<Report>(t, "/validate/pipeline", { definition: def });
    expect(r.errors).toEqual([]);
    const w = (id: string) => r.warnings.filter((x) => x.node_id === id).map((x) => x.message).join(" | ");
    expect(w("route")).toMatch(/Output port false of route is not connected/);
    expect(w("post")).toMatch(/no error route/);
    expect(w("post")).toMatch(/test_mode only simulates: after/);
    expect(w("post")).toMatch(/Output port http_error/);
    expect(w("lonely")).toMatch(/starts nothing/);
    expect(w("shape")).toMatch(/Required field expression .* placeholder/);
  });

  it("answers 400 in the documented shape for a body that is not JSON of the right shape", async () => {
    const t = await createTenant();
    const res = await t.fetch("/api/copilot/validate/pipeline", { method: "POST", json: { nodes: [] } });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("VALIDATION_FAILED");
    // A definition of the wrong shape is a validation result, not an error.
    const r = await post<Report>(t, "/validate/pipeline", { definition: { nodes: "x" } });
    expect(r.valid).toBe(false);
    expect(r.errors[0]?.message).toBeTruthy();
  });
});

describe("analyze", () => {
  it("reports failure rates per node from the pipeline's real executions", async () => {
    const t = await createTenant();
    const def = definition(
      [trigger(), { id: "check", type: "data.transform", config: { expression: 'fail ? $error("bad input") : $' } }],
      [edge("start", "check", "event")],
    );
    const id = await createPipeline(t, def);
    for (const fail of [true, false, true, false]) await run(t, id, { fail });
    const a = await post<{ kind: string; history: { executions: number; failed: number; nodes: Record<string, { runs: number; failed: number; failure_rate: number }> }; warnings: Report["warnings"]; recommendations: string[] }>(
      t,
      "/analyze",
      { pipeline_id: id },
    );
    expect(a.kind).toBe("pipeline");
    expect(a.history.executions).toBe(4);
    expect(a.history.failed).toBe(2);
    expect(a.history.nodes.check).toMatchObject({ runs: 4, failed: 2, failure_rate: 0.5 });
    expect(a.warnings.find((w) => w.node_id === "check")?.message).toMatch(/failed in 2 of 4 recorded runs/);
    expect(a.recommendations.join(" ")).toMatch(/retry policy or an error route/);
  });

  it("finds an agent's missing tools, missing {{input}} and unavailable model", async () => {
    const t = await createTenant();
    const a = await post<{ kind: string; errors: { path: string; message: string }[] }>(t, "/analyze", {
      agent: { prompt_template: "Summarize the chart", tools: ["fhir_search", "no_such_tool"], model_config: { model: "nowhere/model", max_tokens: 512 } },
    });
    expect(a.kind).toBe("agent");
    const paths = a.errors.map((e) => e.path);
    expect(paths).toEqual(expect.arrayContaining(["tools.1", "prompt_template", "model_config.model"]));
    expect(paths).not.toContain("tools.0");
  });
});

describe("insights", () => {
  it("reads the agent's real conversations: tool calls, tool errors, reported tokens, recommendations", async () => {
    const t = await createTenant();
    giveModel(t.orgId, (req, i) => {
      const last = req.messages.at(-1);
      if (last?.role === "tool") return { content: "There are no matching patients." };
      return i % 2 === 0 ? { tool_calls: [{ name: "fhir_search", arguments: { resource_type: "Patient", query: "family=Smith" } }] } : { content: "ok" };
    });
    const agent = (await (await t.fetch("/api/agents", { method: "POST", json: { template_id: "template-custom", tools: ["fhir_search", "terminology_lookup"] } })).json()) as { id: string };
    const conv = (await (await t.fetch(`/api/agents/${agent.id}/conversations`, { method: "POST", json: {} })).json()) as { id: string };
    const sent = await t.fetch(`/api/agents/${agent.id}/conversations/${conv.id}/messages`, { method: "POST", json: { message: "find Smith" } });
    expect(sent.status, await sent.clone().text()).toBe(200);
    const res = await t.fetch(`/api/copilot/insights/${agent.id}`);
    expect(res.status).toBe(200);
    const ins = (await res.json()) as { conversations: { total: number; messages: number }; tool_usage: Record<string, { calls: number }>; unused_tools: string[]; tokens: { estimated: boolean; source: string; input: number; output: number }; recommendations: string[] };
    expect(ins.conversations).toMatchObject({ total: 1, messages: 2 });
    expect(ins.tool_usage.fhir_search?.calls).toBe(1);
    expect(ins.unused_tools).toEqual(["terminology_lookup"]);
    // Two model calls in the turn, each reporting the fake server's default usage (20 prompt, 8 completion tokens).
    expect(ins.tokens).toMatchObject({ estimated: false, source: "reported", input: 40, output: 16 });
    expect(ins.recommendations.join(" ")).toMatch(/Never used: terminology_lookup/);
  });
});

describe("turn accounting", () => {
  interface Insights {
    turns: { total: number; completed: number; failed: number; failures: Record<string, number> };
    tokens: { estimated: boolean; estimated_turns: number; source: string; input: number; output: number };
    recommendations: string[];
  }
  const chat = (t: Tenant, agentId: string, message: string, stream = false) => t.fetch(`/api/agents/${agentId}/chat`, { method: "POST", json: { message, stream } });

  it("records the model's reported usage per turn, streamed or not, and counts failed turns with their reason", async () => {
    const t = await createTenant();
    const server = giveModel(t.orgId, (req) => {
      const text = lastOf(req, "user");
      if (text.includes("fail")) return { status: 500, body: "upstream exploded" };
      if (text.includes("quiet")) return { content: "no usage from me", usage: null };
      return { content: "counted", usage: { prompt_tokens: 100, completion_tokens: 10 } };
    });
    const agent = (await (await t.fetch("/api/agents", { method: "POST", json: { template_id: "template-custom" } })).json()) as { id: string };

    expect((await chat(t, agent.id, "hello")).status).toBe(200);
    const streamed = await chat(t, agent.id, "hello again", true);
    expect(await streamed.text()).toContain("event: done");
    expect(server.requests.find((r) => r.stream)?.stream_options?.include_usage).toBe(true);
    let ins = await (await t.fetch(`/api/copilot/insights/${agent.id}`)).json() as Insights;
    expect(ins.turns).toEqual({ total: 2, completed: 2, failed: 0, failures: {} });
    expect(ins.tokens).toMatchObject({ estimated: false, estimated_turns: 0, source: "reported", input: 200, output: 20 });

    expect((await chat(t, agent.id, "please fail")).status).toBe(502);
    const quiet = await chat(t, agent.id, "be quiet");
    expect(quiet.status).toBe(200);
    ins = await (await t.fetch(`/api/copilot/insights/${agent.id}`)).json() as Insights;
    expect(ins.turns).toEqual({ total: 4, completed: 3, failed: 1, failures: { MODEL_ERROR: 1 } });
    // The failed call and the quiet answer reported nothing: their counts are estimates, and say so.
    expect(ins.tokens.estimated).toBe(true);
    expect(ins.tokens.estimated_turns).toBe(2);
    expect(ins.tokens.input).toBeGreaterThan(200);
    expect(ins.tokens.output).toBe(20 + Math.ceil("no usage from me".length / 4));
    expect(ins.recommendations.join(" ")).toMatch(/1 of 4 turns failed \(MODEL_ERROR ×1\)/);

    // Another organization's insights never see these turns.
    const other = await createTenant();
    expect((await other.fetch(`/api/copilot/insights/${agent.id}`)).status).toBe(404);
  });

  it("records the copilot's chat turns and an agent turn's tool errors", async () => {
    const t = await createTenant();
    giveModel(t.orgId, (req) => {
      if (req.messages.at(-1)?.role === "tool") return { content: "the tool failed", usage: { prompt_tokens: 30, completion_tokens: 4 } };
      if (lastOf(req, "user").includes("broken tool")) return { tool_calls: [{ name: "fhir_search", arguments: { query: 42 } }], usage: { prompt_tokens: 25, completion_tokens: 5 } };
      return { content: "fine", usage: { prompt_tokens: 7, completion_tokens: 3 } };
    });
    const copilot = await t.fetch("/api/copilot/chat", { method: "POST", json: { message: "hello", stream: false } });
    expect(copilot.status, await copilot.clone().text()).toBe(200);
    expect(await turnTotals(t.ctx, "copilot")).toMatchObject({ turns: 1, failed: 0, inputTokens: 7, outputTokens: 3, estimatedTurns: 0 });

    const agent = (await (await t.fetch("/api/agents", { method: "POST", json: { template_id: "template-custom", tools: ["fhir_search"] } })).json()) as { id: string };
    expect((await chat(t, agent.id, "broken tool")).status).toBe(200);
    // Two model calls in the turn: their usage is summed; the tool's failure is counted on the turn.
    expect(await turnTotals(t.ctx, agent.id)).toMatchObject({ turns: 1, failed: 0, inputTokens: 55, outputTokens: 9, toolCalls: 1, toolErrors: 1 });
  });
});

describe("infer/schema", () => {
  it("infers types, required fields, formats, enums and nested arrays", async () => {
    const t = await createTenant();
    const samples = [
      { id: "a1", status: "final", at: "2024-05-01T10:00:00Z", value: 1, codes: [{ system: "http://loinc.org", code: "8867-4" }] },
      { id: "a2", status: "final", at: "2024-05-02T10:00:00+02:00", value: 1.5, codes: [] },
      { id: "a3", status: "amended", at: "2024-05-03T10:00:00Z", value: 2, note: "x", codes: [{ system: "http://loinc.org", code: "29463-7" }] },
    ];
    const { schema } = await post<{ schema: Record<string, unknown> }>(t, "/infer/schema", { samples });
    expect(schema).toMatchObject({
      type: "object",
      required: ["id", "status", "at", "value", "codes"],
      properties: {
        status: { type: "string", enum: ["amended", "final"] },
        at: { type: "string", format: "date-time" },
        value: { type: "number" },
        note: { type: "string" },
        codes: { type: "array", items: { type: "object", properties: { system: { type: "string", format: "uri" } }, required: ["system", "code"] } },
      },
    });
  });
});

describe("configure/node and auto-configure/pipeline", () => {
  it("fills from the config_schema and the org's only fitting connector, and lists what is left", async () => {
    const t = await createTenant();
    const conn = await t.fetch("/api/connectors", { method: "POST", json: { name: "lab", type: "mllp", endpoint: "mllp://127.0.0.1:2575" } });
    expect(conn.status, await conn.clone().text()).toBe(201);
    const connector = (await conn.json()) as { id: string };
    const node = await post<{ config: Record<string, unknown>; filled: { field: string; source: string }[]; valid: boolean }>(t, "/configure/node", { node_type: "hl7.send" });
    expect(node.config.connector_id).toBe(connector.id);
    expect(node.filled).toContainEqual(expect.objectContaining({ field: "connector_id", source: "connector" }));
    expect(node.valid).toBe(true);
    const transform = await post<{ missing: string[]; valid: boolean }>(t, "/configure/node", { node_type: "data.transform" });
    expect(transform.valid).toBe(false);
    expect((await t.fetch("/api/copilot/configure/node", { method: "POST", json: { node_type: "nope.node" } })).status).toBe(400);

    const def = definition([trigger(), { id: "send", type: "hl7.send", config: { connector_id: "" } }], [edge("start", "send", "event", "message")]);
    const auto = await post<{ changes: { node_id: string; field: string; value: unknown }[]; validation: Report; definition: { nodes: { id: string; config: Record<string, unknown> }[] } }>(
      t,
      "/auto-configure/pipeline",
      { definition: def },
    );
    expect(auto.changes).toContainEqual(expect.objectContaining({ node_id: "send", field: "connector_id", value: connector.id }));
    expect(auto.definition.nodes.find((n) => n.id === "send")?.config.connector_id).toBe(connector.id);
  });
});

describe("generate/pipeline-docs", () => {
  it("documents purpose, trigger, each node, data flow and error handling", async () => {
    const t = await createTenant();
    const id = await createPipeline(t, good, { name: "ADT shaping", deploy: false });
    const { markdown } = await post<{ markdown: string }>(t, "/generate/pipeline-docs", { pipeline_id: id });
    for (const heading of ["# ADT shaping", "## Purpose", "## Trigger", "## Nodes", "### shape: Transform (JSONata)", "## Data flow", "## Error handling"]) {
      expect(markdown).toContain(heading);
    }
    expect(markdown).toContain("`start.event` → `shape.input`");
  });
});

describe("health", () => {
  it("is degraded without a model, the deterministic part available", async () => {
    const t = await createTenant();
    const h = (await (await t.fetch("/api/copilot/health")).json()) as { status: string; deterministic: { available: boolean; node_types: number }; model: { available: boolean } };
    expect(h.status).toBe("degraded");
    expect(h.deterministic.available).toBe(true);
    expect(h.deterministic.node_types).toBeGreaterThan(20);
    expect(h.model.available).toBe(false);
  });
});

describe("tenancy, roles and limits", () => {
  it("never reaches another organization's pipelines or agents by id", async () => {
    const a = await createTenant();
    const b = await createTenant();
    const pid = await createPipeline(a, good, { deploy: false });
    const agent = (await (await a.fetch("/api/agents", { method: "POST", json: { template_id: "template-custom" } })).json()) as { id: string };
    for (const [path, body] of [
      ["/analyze", { pipeline_id: pid }],
      ["/analyze", { agent_id: agent.id }],
      ["/generate/pipeline-docs", { pipeline_id: pid }],
      ["/auto-configure/pipeline", { pipeline_id: pid }],
      ["/suggestions", { pipeline_id: pid }],
    ] as const) {
      const res = await b.fetch(`/api/copilot${path}`, { method: "POST", json: body });
      expect(res.status, path).toBe(404);
    }
    expect((await b.fetch(`/api/copilot/insights/${agent.id}`)).status).toBe(404);
  });

  it("checks roles: clinicians validate but do not generate; service keys read no agent insights", async () => {
    const t = await createTenant();
    const clinician = authedFetch(t.orgId, (await createKey(t.orgId, "clinician")).key);
    const service = authedFetch(t.orgId, (await createKey(t.orgId, "service")).key);
    expect((await clinician("/api/copilot/validate/pipeline", { method: "POST", json: { definition: good } })).status).toBe(200);
    expect((await clinician("/api/copilot/generate/pipeline", { method: "POST", json: { description: "x" } })).status).toBe(403);
    expect((await clinician("/api/copilot/chat", { method: "POST", json: { message: "x" } })).status).toBe(403);
    expect((await clinician("/api/copilot/suggestions", { method: "POST", json: { pipeline_id: "x" } })).status).toBe(403);
    expect((await service("/api/copilot/insights/x")).status).toBe(403);
    expect((await service("/api/copilot/analyze", { method: "POST", json: { agent_id: "x" } })).status).toBe(403);
  });

  it("counts every copilot request, GET too, in the per-key bucket: X-RateLimit headers, then 429", async () => {
    const t = await createTenant({ limits: { copilotPerMinute: 2 } });
    await withinOneMinuteWindow();
    const first = await t.fetch("/api/copilot/health");
    expect(first.headers.get("x-ratelimit-limit")).toBe("2");
    expect(first.headers.get("x-ratelimit-remaining")).toBe("1");
    expect((await t.fetch("/api/copilot/validate/pipeline", { method: "POST", json: { definition: good } })).status).toBe(200);
    const refused = await t.fetch("/api/copilot/health");
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toBeTruthy();
  });
});
