// The tool loop against the AI SDK's mock model: event order, step limit,
// malformed arguments, failing tools, model errors and timeouts, bounded results.
import { APICallError } from "ai";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { type AgentEvent, collectTurn } from "../../../src/features/agents/events";
import { runAgent } from "../../../src/features/agents/run";
import type { AgentTool } from "../../../src/features/agents/tools/types";
import { type Script, scriptedModel } from "../../support/scripted-model";

const lookup: AgentTool = {
  name: "lookup",
  description: "Looks a code up",
  input: { zod: z.object({ code: z.string() }) },
  execute: async (args) => ({ display: `display of ${(args as { code: string }).code}` }),
};
const broken: AgentTool = {
  name: "broken",
  description: "Always fails",
  input: { zod: z.object({}) },
  execute: async () => {
    throw new Error("upstream exploded");
  },
};
const huge: AgentTool = {
  name: "huge",
  description: "Returns a lot",
  input: { zod: z.object({}) },
  execute: async () => ({ blob: "x".repeat(100_000) }),
};

async function events(script: Script, opts: { tools?: AgentTool[]; maxSteps?: number; timeoutMs?: number } = {}) {
  const model = scriptedModel(script);
  const out: AgentEvent[] = [];
  for await (const e of runAgent({
    model,
    modelId: "test/scripted",
    messages: [{ role: "user", content: "What is 8867-4?" }],
    tools: opts.tools ?? [lookup],
    agentId: "a1",
    maxSteps: opts.maxSteps,
    timeoutMs: opts.timeoutMs,
  })) {
    out.push(e);
  }
  return { out, model };
}

describe("runAgent", () => {
  it("calls a tool, feeds the result back and answers, in order", async () => {
    const { out, model } = await events([
      { text: "I will look it up.", toolCalls: [{ name: "lookup", args: { code: "8867-4" } }] },
      { text: "It is heart rate." },
    ]);
    expect(out.map((e) => e.type)).toEqual(["thinking", "tool_call", "tool_result", "message", "done"]);
    expect(out[1]).toMatchObject({ tool: "lookup", params: { code: "8867-4" } });
    expect(out[2]).toMatchObject({ result: { display: "display of 8867-4" }, is_error: false });
    expect(out[3]).toMatchObject({ content: "It is heart rate." });
    // The second model call saw the tool result.
    const second = JSON.stringify(model.doStreamCalls[1]?.prompt);
    expect(second).toContain("display of 8867-4");
  });

  it("emits reasoning as thinking", async () => {
    const { out } = await events([{ reasoning: "The user asks a code.", text: "Heart rate." }]);
    expect(out[0]).toEqual({ type: "thinking", content: "The user asks a code." });
    expect(out.map((e) => e.type)).toEqual(["thinking", "message", "done"]);
  });

  it("stops at the step limit: the last call is offered no tools and must answer", async () => {
    const { out, model } = await events(
      (call, i) =>
        call.tools?.length ? { toolCalls: [{ name: "lookup", args: { code: `c${i}` } }] } : { text: "Enough, the answer." },
      { maxSteps: 3 },
    );
    expect(model.doStreamCalls).toHaveLength(3);
    expect(model.doStreamCalls[2]?.tools ?? []).toHaveLength(0);
    expect(out.filter((e) => e.type === "tool_call")).toHaveLength(2);
    expect(out.at(-2)).toEqual({ type: "message", content: "Enough, the answer." });
    expect(out.at(-1)).toMatchObject({ type: "done", steps: 3 });
  });

  it("turns malformed tool arguments into an error result the model sees", async () => {
    const { out, model } = await events([
      { toolCalls: [{ name: "lookup", args: '{"code": ' }] },
      { toolCalls: [{ name: "lookup", args: { wrong: 1 } }] },
      { text: "Sorry, I could not look it up." },
    ]);
    const results = out.filter((e) => e.type === "tool_result");
    expect(results).toHaveLength(2);
    for (const r of results) expect(r).toMatchObject({ is_error: true, result: { error: expect.any(String) } });
    expect(JSON.stringify(model.doStreamCalls[2]?.prompt)).toContain("error");
    expect(out.at(-1)?.type).toBe("done");
  });

  it("turns a call to an unassigned tool into an error result", async () => {
    const { out } = await events([{ toolCalls: [{ name: "delete_everything", args: {} }] }, { text: "ok" }]);
    expect(out.find((e) => e.type === "tool_result")).toMatchObject({ tool: "delete_everything", is_error: true });
  });

  it("turns a failing tool into an error result, not a crash", async () => {
    const { out } = await events([{ toolCalls: [{ name: "broken", args: {} }] }, { text: "The tool failed." }], {
      tools: [broken],
    });
    expect(out.find((e) => e.type === "tool_result")).toMatchObject({
      is_error: true,
      result: { error: "upstream exploded" },
    });
    expect(out.at(-1)?.type).toBe("done");
  });

  it("bounds tool results", async () => {
    const { out } = await events([{ toolCalls: [{ name: "huge", args: {} }] }, { text: "big" }], { tools: [huge] });
    const r = out.find((e) => e.type === "tool_result") as Extract<AgentEvent, { type: "tool_result" }>;
    expect(r.result).toMatchObject({ truncated: true, original_chars: expect.any(Number) });
    expect(JSON.stringify(r.result).length).toBeLessThan(17_000);
  });

  it("ends with an error event when the model fails", async () => {
    const fail = new APICallError({
      message: "Internal Server Error",
      url: "http://model/v1/chat/completions",
      requestBodyValues: {},
      statusCode: 500,
      isRetryable: false,
    });
    const { out } = await events([{ fail }]);
    // The failed turn still carries its usage (none reported), so the turn accounting counts it.
    expect(out).toEqual([{ type: "error", code: "MODEL_ERROR", status: 502, message: expect.stringContaining("500"), usage: { input_tokens: 0, output_tokens: 0, reported: false } }]);
  });

  it("ends with MODEL_TIMEOUT when the model does not answer in time", async () => {
    const { out } = await events([{ hang: true }], { timeoutMs: 50 });
    expect(out.at(-1)).toMatchObject({ type: "error", code: "MODEL_TIMEOUT", status: 504 });
  });

  it("collects a non-streaming answer with reasoning steps", async () => {
    const model = scriptedModel([
      { toolCalls: [{ name: "lookup", args: { code: "8867-4" } }] },
      { text: "Heart rate." },
    ]);
    const turn = await collectTurn(
      runAgent({ model, modelId: "m", messages: [{ role: "user", content: "?" }], tools: [lookup], agentId: "a" }),
      (e) => new Error(e.message),
    );
    expect(turn.response).toBe("Heart rate.");
    expect(turn.reasoning_steps).toEqual([
      { type: "tool_call", content: "Calling lookup", tool: "lookup", params: { code: "8867-4" } },
      { type: "tool_result", content: "lookup returned", tool: "lookup", result: { display: "display of 8867-4" } },
    ]);
  });
});
