// The real wire format over a real socket: a node:http server on 127.0.0.1
// speaking chat.completions (SSE chunks, tool_calls deltas), driven through the
// same model module (@ai-sdk/openai-compatible) and tool loop as production.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import type { AgentEvent } from "../../../src/features/agents/events";
import { resolveModel } from "../../../src/features/agents/models";
import { runAgent } from "../../../src/features/agents/run";
import { type Brain, fakeOpenAI } from "../../support/fake-openai";
import { type LoopbackServer, serveOnLoopback } from "../../support/loopback-http";

let brain: Brain = () => ({ content: "unset" });
const fake = fakeOpenAI((req, i) => brain(req, i), ["wire-model"]);
let server: LoopbackServer;
let baseURL = "";

beforeAll(async () => {
  server = await serveOnLoopback((url, init) => fake.fetch(url, init));
  baseURL = `${server.origin}/v1`;
});
afterAll(() => server.close());

async function run(opts: { timeoutMs?: number } = {}) {
  const { model, info } = resolveModel({ endpoints: [{ id: "local", baseURL, apiKey: "k", models: [{ name: "wire-model" }] }] }, "local/wire-model");
  const out: AgentEvent[] = [];
  for await (const e of runAgent({
    model,
    modelId: info.id,
    messages: [{ role: "user", content: "weight of 29463-7?" }],
    agentId: "a",
    timeoutMs: opts.timeoutMs,
    tools: [
      {
        name: "terminology_lookup",
        description: "look up",
        input: { zod: z.object({ system: z.string(), code: z.string() }) },
        execute: async (a) => ({ display: `Body weight (${(a as { code: string }).code})` }),
      },
    ],
  })) {
    out.push(e);
  }
  return out;
}

describe("OpenAI-compatible wire format", () => {
  it("streams tool_calls deltas, runs the tool and sends the result back", async () => {
    brain = (req) =>
      req.messages.some((m) => m.role === "tool")
        ? { content: "It is body weight." }
        : { tool_calls: [{ name: "terminology_lookup", arguments: { system: "loinc", code: "29463-7" } }] };
    const before = fake.requests.length;
    const out = await run();
    expect(out.map((e) => e.type)).toEqual(["tool_call", "tool_result", "message", "done"]);
    expect(out[0]).toMatchObject({ params: { system: "loinc", code: "29463-7" } });
    const second = fake.requests[before + 1]!;
    expect(second.stream).toBe(true);
    expect(second.tools?.[0]?.function.name).toBe("terminology_lookup");
    const toolMsg = second.messages.find((m) => m.role === "tool");
    expect(toolMsg?.content).toContain("Body weight (29463-7)");
    expect(second.messages.find((m) => m.role === "assistant")?.tool_calls).toHaveLength(1);
  });

  it("maps an HTTP failure and a hung endpoint to model errors", async () => {
    brain = () => ({ status: 404, body: "model not loaded" });
    expect((await run()).at(-1)).toMatchObject({ type: "error", code: "MODEL_UNAVAILABLE" });
    brain = () => ({ hang: true });
    expect((await run({ timeoutMs: 200 })).at(-1)).toMatchObject({ type: "error", code: "MODEL_TIMEOUT" });
  });
});
