// test_mode writes nothing outside, including through an ai node whose agent calls a
// custom tool or runs a pipeline: the real services run; the model and the external
// API are fakes behind fetch, which records every request.
import { afterEach, describe, expect, it, vi } from "vitest";
import { fakeOpenAI } from "../support/fake-openai";
import { createPipeline, definition, edge, run, trigger } from "../support/pipelines";
import { createTenant, type Tenant } from "../support/tenants";

const LLM = "https://llm.example.test/v1";
const API = "https://api.example.test/v1";

afterEach(() => vi.restoreAllMocks());

/** The model calls `tool` once per turn, then answers; every request to the external API is recorded. */
function serve(tool: string, args: Record<string, unknown>) {
  const model = fakeOpenAI((req) => (req.messages.at(-1)?.role === "tool" ? { content: "done" } : { tool_calls: [{ name: tool, arguments: args }] }), ["clinic-llama"]);
  const sent: { method: string; url: string }[] = [];
  const real = globalThis.fetch;
  vi.spyOn(globalThis, "fetch").mockImplementation(async (input, init) => {
    const request = new Request(input, init);
    if (request.url.startsWith(LLM)) return model.fetch(request);
    if (!request.url.startsWith(API)) return real(input, init);
    sent.push({ method: request.method, url: request.url });
    return Response.json({ ok: true });
  });
  return { model, sent };
}

async function post<T>(t: Tenant, path: string, json: unknown): Promise<T> {
  const res = await t.fetch(path, { method: "POST", json });
  expect(res.status, `${path}: ${await res.clone().text()}`).toBeLessThan(300);
  return (await res.json()) as T;
}

/** A deployed agent with the given tools, on the org's model connector, in a pipeline's ai.agent node. */
async function agentPipeline(t: Tenant, tools: string[]) {
  const llm = await post<{ id: string }>(t, "/api/connectors", { name: "LLM", type: "openai_compatible", endpoint: LLM, credentials: { token: "sk-1234567890" } });
  const agent = await post<{ id: string }>(t, "/api/agents", {
    template_id: "template-summarizer",
    name: "Notifier",
    tools,
    model_config: { model: `${llm.id}/clinic-llama`, temperature: 0, max_tokens: 128 },
  });
  await post(t, `/api/agents/${agent.id}/deploy`, {});
  return createPipeline(
    t,
    definition(
      [trigger(), { id: "text", type: "data.transform", config: { expression: "note" } }, { id: "agent", type: "ai.agent", config: { agent_id: agent.id } }],
      [edge("start", "text", "event"), edge("text", "agent", "output", "input")],
    ),
  );
}

describe("test_mode and agents' tools", () => {
  it("an agent's custom HTTP tool sends no POST in test mode, and does outside it", async () => {
    const t = await createTenant();
    const { model, sent } = serve("notify_ward", { patient_id: "p1" });
    const api = await post<{ id: string }>(t, "/api/connectors", { name: "Ward API", type: "http", endpoint: API, credentials: { token: "tkn-12345678" } });
    await post(t, "/api/tools", {
      name: "notify_ward",
      description: "Notifies the ward",
      parameters: { type: "object", properties: { patient_id: { type: "string" } } },
      implementation: { kind: "http", connector_id: api.id, method: "POST", path: "notify" },
    });
    const pipeline = await agentPipeline(t, ["notify_ward"]);

    const tested = await run(t, pipeline, { note: "Patient p1 deteriorating" }, { test_mode: true });
    expect(tested.body.status).toBe("completed");
    expect(sent).toEqual([]);
    // The model was told the tool was blocked, not that it succeeded.
    expect(JSON.stringify(model.requests.at(-1)?.messages)).toContain("Test mode blocks POST");

    const live = await run(t, pipeline, { note: "Patient p1 deteriorating" });
    expect(live.body.status).toBe("completed");
    expect(sent).toEqual([{ method: "POST", url: `${API}/notify` }]);
  });

  it("an agent's run_pipeline runs the pipeline in test mode: its HTTP POST is only reported", async () => {
    const t = await createTenant();
    const target = await createPipeline(
      t,
      definition([trigger(), { id: "post", type: "output.http_request", config: { url: `${API}/orders`, method: "POST" } }], [edge("start", "post", "event")]),
    );
    const { sent } = serve("run_pipeline", { pipeline_id: target, inputs: { order: 1 } });
    const pipeline = await agentPipeline(t, ["run_pipeline"]);
    const tested = await run(t, pipeline, { note: "Order labs" }, { test_mode: true });
    expect(tested.body.status).toBe("completed");
    expect(sent).toEqual([]);
  });
});
