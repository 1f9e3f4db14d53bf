// A faithful fake language model for unit tests: the AI SDK's MockLanguageModelV4
// streaming the provider-level parts a real model would (text, reasoning, tool
// calls with JSON-encoded input, finish with usage), one scripted reply per call.
import type { LanguageModelV4CallOptions, LanguageModelV4StreamPart } from "@ai-sdk/provider";
import { MockLanguageModelV4, convertArrayToReadableStream } from "ai/test";

export interface ScriptedReply {
  text?: string;
  reasoning?: string;
  /** `args` as a string is sent verbatim, so malformed JSON can be scripted. */
  toolCalls?: { name: string; args: unknown }[];
  /** Throw from the model call (e.g. an APICallError). */
  fail?: unknown;
  /** Never answer: wait until the call is aborted. */
  hang?: boolean;
}

export type Script = ScriptedReply[] | ((call: LanguageModelV4CallOptions, index: number) => ScriptedReply);

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 5, text: 5, reasoning: 0 },
};

function parts(reply: ScriptedReply, index: number): LanguageModelV4StreamPart[] {
  const out: LanguageModelV4StreamPart[] = [{ type: "stream-start", warnings: [] }];
  if (reply.reasoning) {
    out.push({ type: "reasoning-start", id: `r${index}` });
    out.push({ type: "reasoning-delta", id: `r${index}`, delta: reply.reasoning });
    out.push({ type: "reasoning-end", id: `r${index}` });
  }
  if (reply.text) {
    out.push({ type: "text-start", id: `t${index}` });
    // Two deltas, as real models split text.
    const half = Math.ceil(reply.text.length / 2);
    out.push({ type: "text-delta", id: `t${index}`, delta: reply.text.slice(0, half) });
    if (reply.text.length > half) out.push({ type: "text-delta", id: `t${index}`, delta: reply.text.slice(half) });
    out.push({ type: "text-end", id: `t${index}` });
  }
  (reply.toolCalls ?? []).forEach((c, i) => {
    out.push({
      type: "tool-call",
      toolCallId: `call_${index}_${i}`,
      toolName: c.name,
      input: typeof c.args === "string" ? c.args : JSON.stringify(c.args),
    });
  });
  const calls = reply.toolCalls?.length ?? 0;
  out.push({
    type: "finish",
    usage,
    finishReason: { unified: calls ? "tool-calls" : "stop", raw: calls ? "tool_calls" : "stop" },
  });
  return out;
}

export function scriptedModel(script: Script) {
  let index = 0;
  const model: MockLanguageModelV4 = new MockLanguageModelV4({
    provider: "test",
    modelId: "scripted",
    doStream: async (call) => {
      const i = index++;
      const reply = typeof script === "function" ? script(call, i) : script[i];
      if (!reply) throw new Error(`Scripted model has no reply for call ${i}`);
      if (reply.fail) throw reply.fail;
      if (reply.hang) {
        await new Promise((_, reject) => {
          call.abortSignal?.addEventListener("abort", () => reject(call.abortSignal?.reason));
        });
      }
      return { stream: convertArrayToReadableStream(parts(reply, i)) };
    },
  });
  return model;
}
