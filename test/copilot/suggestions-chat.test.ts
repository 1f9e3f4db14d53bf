// Stored suggestions (diff, apply as a new version, 409 on a changed version) and the
// copilot chat (JSON and SSE: event names and order, tools, a pipeline from context).
import { beforeAll, describe, expect, it } from "vitest";
import { giveModel, installAgentFakes } from "../support/agent-fakes";
import type { ChatRequest } from "../support/fake-openai";
import { createPipeline, definition, edge, trigger } from "../support/pipelines";
import { parseSse } from "../support/sse";
import { createTenant, type Tenant } from "../support/tenants";

beforeAll(installAgentFakes);

interface Suggestion {
  id: string;
  kind: string;
  base_version: number;
  diff: { op: string; path: string; value?: unknown }[];
  status: string;
}

const withHttp = definition(
  [trigger(), { id: "call", type: "output.http_request", config: { url: "https://ehr.example.net/notify", method: "POST" } }],
  [edge("start", "call", "event")],
);

async function suggest(t: Tenant, pipelineId: string) {
  const res = await t.fetch("/api/copilot/suggestions", { method: "POST", json: { pipeline_id: pipelineId } });
  expect(res.status, await res.clone().text()).toBe(200);
  return ((await res.json()) as { suggestions: Suggestion[] }).suggestions;
}

describe("suggestions", () => {
  it("stores a diff on the current version; apply saves it as the next version; a second apply is 409", async () => {
    const t = await createTenant();
    const id = await createPipeline(t, withHttp, { deploy: false });
    const [s] = await suggest(t, id);
    expect(s).toMatchObject({ kind: "error_route", base_version: 1, status: "open" });
    expect(s?.diff).toContainEqual({ op: "replace", path: "/nodes/1/on_error", value: "route" });
    expect(s?.diff.some((op) => op.op === "add" && op.path === "/connections/1")).toBe(true);

    const listed = (await (await t.fetch(`/api/copilot/suggestions?pipeline_id=${id}`)).json()) as { suggestions: Suggestion[]; total_count: number };
    expect(listed.total_count).toBe(1);

    const applied = await t.fetch(`/api/copilot/suggestions/${s?.id}/apply`, { method: "POST" });
    expect(applied.status, await applied.clone().text()).toBe(200);
    const body = (await applied.json()) as { suggestion: Suggestion & { applied_version: number }; pipeline: { version: number; definition: { nodes: { id: string; on_error: string }[] } } };
    expect(body.pipeline.version).toBe(2);
    expect(body.suggestion).toMatchObject({ status: "applied", applied_version: 2 });
    expect(body.pipeline.definition.nodes.find((n) => n.id === "call")?.on_error).toBe("route");
    // The pipeline's stored version history has it.
    expect((await t.fetch(`/api/pipelines/${id}/versions/2`)).status).toBe(200);
    const again = await t.fetch(`/api/copilot/suggestions/${s?.id}/apply`, { method: "POST" });
    expect(again.status).toBe(409);
  });

  it("refuses a suggestion for a pipeline that changed since (409) and leaves it unchanged", async () => {
    const t = await createTenant();
    const id = await createPipeline(t, withHttp, { deploy: false });
    const [s] = await suggest(t, id);
    const changed = { ...withHttp, nodes: withHttp.nodes.map((n) => (n.id === "call" ? { ...n, config: { ...n.config, method: "PUT" } } : n)) };
    expect((await t.fetch(`/api/pipelines/${id}`, { method: "PUT", json: { name: "p", definition: changed } })).status).toBe(200);
    const res = await t.fetch(`/api/copilot/suggestions/${s?.id}/apply`, { method: "POST" });
    expect(res.status).toBe(409);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("PIPELINE_VERSION_CONFLICT");
    const p = (await (await t.fetch(`/api/pipelines/${id}`)).json()) as { version: number };
    expect(p.version).toBe(2);
  });

  it("keeps suggestions per organization: another org cannot list or apply them", async () => {
    const a = await createTenant();
    const b = await createTenant();
    const id = await createPipeline(a, withHttp, { deploy: false });
    const [s] = await suggest(a, id);
    expect((await b.fetch(`/api/copilot/suggestions/${s?.id}/apply`, { method: "POST" })).status).toBe(404);
    const listed = (await (await b.fetch("/api/copilot/suggestions")).json()) as { total_count: number };
    expect(listed.total_count).toBe(0);
  });

  it("adds the model's refinement with use_model (503 without a model)", async () => {
    const t = await createTenant();
    const id = await createPipeline(t, withHttp, { deploy: false });
    expect((await t.fetch("/api/copilot/suggestions", { method: "POST", json: { pipeline_id: id, use_model: true } })).status).toBe(503);
    const refined = { name: "x", nodes: withHttp.nodes.map((n) => (n.id === "call" ? { ...n, retry: { max_attempts: 2, backoff_ms: 100, backoff_factor: 2 } } : n)), connections: withHttp.connections };
    giveModel(t.orgId, () => ({ content: JSON.stringify(refined) }));
    const res = await t.fetch("/api/copilot/suggestions", { method: "POST", json: { pipeline_id: id, use_model: true } });
    const { suggestions } = (await res.json()) as { suggestions: Suggestion[] };
    expect(suggestions.map((s) => s.kind)).toEqual(["error_route", "model"]);
    expect(suggestions[1]?.diff).toContainEqual({ op: "add", path: "/nodes/1/retry", value: { max_attempts: 2, backoff_ms: 100, backoff_factor: 2 } });
  });
});

const proposal = (nodes: unknown[]) => ({
  name: "propose_pipeline",
  arguments: { name: "Logged", definition: { nodes, connections: [{ from: { node: "start", port: "event" }, to: { node: "log", port: "input" } }] } },
});

/** Searches the catalog, proposes an invalid pipeline, repairs it, then answers. */
function chatBrain(req: ChatRequest, i: number) {
  if (i === 0) return { tool_calls: [{ name: "search_node_catalog", arguments: { query: "log" } }] };
  if (i === 1) return { tool_calls: [proposal([{ id: "start", type: "control.manual_trigger" }, { id: "log", type: "output.logg" }])] };
  if (i === 2) return { tool_calls: [proposal([{ id: "start", type: "control.manual_trigger" }, { id: "log", type: "output.log" }])] };
  const last = req.messages.at(-1);
  return { content: `Done: ${typeof last?.content === "string" ? last.content.slice(0, 40) : "ok"}` };
}

describe("chat", () => {
  it("streams SSE in order: tool calls and results, validation, the pipeline, the message, done", async () => {
    const t = await createTenant();
    giveModel(t.orgId, chatBrain);
    const res = await t.fetch("/api/copilot/chat", { method: "POST", json: { message: "Build a pipeline that logs its input", stream: true } });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/text\/event-stream/);
    const events = parseSse(await res.text());
    expect(events.map((e) => e.event)).toEqual([
      "tool_call",
      "tool_result",
      "tool_call",
      "tool_result",
      "validation",
      "tool_call",
      "tool_result",
      "validation",
      "pipeline",
      "message",
      "done",
    ]);
    const catalog = events[1]?.data.result as { id: string }[];
    expect(catalog.map((n) => n.id)).toContain("output.log");
    expect(events[4]?.data).toMatchObject({ valid: false });
    expect(events[7]?.data).toMatchObject({ valid: true });
    expect(events[8]?.data).toMatchObject({ name: "Logged", definition: { nodes: [{ id: "start" }, { id: "log", type: "output.log", on_error: "stop" }] } });
  });

  it("answers JSON with the pipeline from context modified, and can search FHIR data (read only)", async () => {
    const t = await createTenant();
    const id = await createPipeline(t, definition([trigger(), { id: "log", type: "output.log" }], [edge("start", "log", "event")]), { deploy: false });
    const created = await t.fetch(`/fhir/r4/${t.orgId}/Patient`, { method: "POST", headers: { "content-type": "application/fhir+json" }, body: JSON.stringify({ resourceType: "Patient", name: [{ family: "Smith" }] }) });
    expect(created.status).toBe(201);
    const server = giveModel(t.orgId, (req, i) => {
      if (i === 0) return { tool_calls: [{ name: "fhir_search", arguments: { resource_type: "Patient", query: "family=Smith" } }] };
      if (i === 1) return { tool_calls: [proposal([{ id: "start", type: "control.manual_trigger" }, { id: "log", type: "output.log", config: { level: "warn" } }])] };
      return { content: `Changed the level. ${req.messages.length}` };
    });
    const res = await t.fetch("/api/copilot/chat", { method: "POST", json: { message: "log at warn level", context: { pipeline_id: id } } });
    expect(res.status, await res.clone().text()).toBe(200);
    const body = (await res.json()) as { response: string; pipeline: { pipeline_id: string; base_version: number; definition: { nodes: { config: Record<string, unknown> }[] } }; validation: { valid: boolean }; reasoning_steps: { type: string; tool?: string; result?: unknown }[] };
    expect(body.response).toMatch(/Changed the level/);
    expect(body.pipeline).toMatchObject({ pipeline_id: id, base_version: 1 });
    expect(body.pipeline.definition.nodes[1]?.config.level).toBe("warn");
    expect(body.validation.valid).toBe(true);
    const search = body.reasoning_steps.find((s) => s.type === "tool_result" && s.tool === "fhir_search");
    expect(JSON.stringify(search?.result)).toContain("Smith");
    // The stored pipeline was in the system prompt.
    expect(server.requests[0]?.messages[0]?.content).toContain(id);
  });

  it("runs a stored pipeline in test_mode as a tool", async () => {
    const t = await createTenant();
    const id = await createPipeline(
      t,
      definition([trigger(), { id: "create", type: "fhir.create" }], [edge("start", "create", "event", "resource")]),
    );
    giveModel(t.orgId, (_req, i) =>
      i === 0 ? { tool_calls: [{ name: "execute_test", arguments: { pipeline_id: id, inputs: { resourceType: "Patient" } } }] } : { content: "It would create a Patient." },
    );
    const body = (await (await t.fetch("/api/copilot/chat", { method: "POST", json: { message: "try it" } })).json()) as { reasoning_steps: { type: string; result?: { status: string; test_mode: boolean } }[] };
    const result = body.reasoning_steps.find((s) => s.type === "tool_result")?.result;
    expect(result).toMatchObject({ status: "completed", test_mode: true });
    const search = (await (await t.fetch(`/fhir/r4/${t.orgId}/Patient`)).json()) as { total?: number; entry?: unknown[] };
    expect(search.entry ?? []).toHaveLength(0);
  });

  it("cannot execute another organization's pipeline by id", async () => {
    const a = await createTenant();
    const b = await createTenant();
    const id = await createPipeline(a, definition([trigger(), { id: "log", type: "output.log" }], [edge("start", "log", "event")]));
    giveModel(b.orgId, (_req, i) => (i === 0 ? { tool_calls: [{ name: "execute_test", arguments: { pipeline_id: id } }] } : { content: "no" }));
    const body = (await (await b.fetch("/api/copilot/chat", { method: "POST", json: { message: "run it" } })).json()) as { reasoning_steps: { type: string; result?: unknown }[] };
    const result = body.reasoning_steps.find((s) => s.type === "tool_result")?.result;
    expect(JSON.stringify(result)).toMatch(/not found/i);
    const executions = (await (await a.fetch("/api/executions")).json()) as { total_count: number };
    expect(executions.total_count).toBe(0);
  });

  it("503 without a model; 404 for another org's pipeline as context", async () => {
    const a = await createTenant();
    const b = await createTenant();
    expect((await b.fetch("/api/copilot/chat", { method: "POST", json: { message: "hi" } })).status).toBe(503);
    const id = await createPipeline(a, withHttp, { deploy: false });
    giveModel(b.orgId, () => ({ content: "x" }));
    expect((await b.fetch("/api/copilot/chat", { method: "POST", json: { message: "hi", context: { pipeline_id: id } } })).status).toBe(404);
  });
});
