// One agent turn: the tool-calling loop over the AI SDK, turned into our events
// (thinking, tool_call, tool_result, message, done | error). Pure of HTTP and
// storage: callers pass the model, the tools and the history.
import { type LanguageModel, type ModelMessage, type ToolSet, isStepCount, jsonSchema, streamText, tool } from "ai";
import type { AgentEvent, TurnUsage } from "./events";
import { classifyModelError } from "./model-errors";
import { boundResult } from "./tools/bound";
import type { AgentTool, ToolContext } from "./tools/types";
import { isPrototypeKey } from "../../platform/object-keys";

export const DEFAULT_MAX_STEPS = 5;
export const MAX_STEPS_LIMIT = 20;
export const DEFAULT_MODEL_TIMEOUT_MS = 60_000;

export interface RunOptions {
  model: LanguageModel;
  modelId: string;
  system?: string;
  messages: ModelMessage[];
  tools: AgentTool[];
  agentId: string;
  temperature?: number;
  maxTokens?: number;
  /** Model calls in the loop; the last one is offered no tools, so it must answer. */
  maxSteps?: number;
  /** Budget for the whole turn, tool calls included. */
  timeoutMs?: number;
  signal?: AbortSignal;
}

function toolSet(tools: AgentTool[], ctx: ToolContext): ToolSet {
  const set: ToolSet = {};
  for (const t of tools) {
    // A tool named __proto__ would re-parent the set instead of joining it.
    if (isPrototypeKey(t.name)) continue;
    set[t.name] = tool({
      description: t.description,
      inputSchema: "zod" in t.input ? t.input.zod : jsonSchema(t.input.jsonSchema),
      // A failing tool becomes a result the model sees and can recover from.
      execute: async (args: unknown) => {
        try {
          return boundResult(await t.execute(args, ctx));
        } catch (err) {
          return { error: err instanceof Error ? err.message : String(err) };
        }
      },
    });
  }
  return set;
}

/** Adds one step's reported usage; a step without counts makes the turn's unreported. */
function addUsage(total: TurnUsage, step: { inputTokens: number | undefined; outputTokens: number | undefined } | undefined): void {
  if (step?.inputTokens === undefined || step.outputTokens === undefined) {
    total.reported = false;
    return;
  }
  total.input_tokens += step.inputTokens;
  total.output_tokens += step.outputTokens;
}

const isErrorResult = (r: unknown) => typeof r === "object" && r !== null && "error" in r;

export async function* runAgent(opts: RunOptions): AsyncGenerator<AgentEvent> {
  const maxSteps = Math.min(Math.max(1, opts.maxSteps ?? DEFAULT_MAX_STEPS), MAX_STEPS_LIMIT);
  const timeout = AbortSignal.timeout(opts.timeoutMs ?? DEFAULT_MODEL_TIMEOUT_MS);
  const signal = opts.signal ? AbortSignal.any([opts.signal, timeout]) : timeout;
  const tools = toolSet(opts.tools, { agentId: opts.agentId, signal });
  const hasTools = opts.tools.length > 0;

  let failure: unknown;
  const result = streamText({
    model: opts.model,
    system: opts.system,
    messages: opts.messages,
    ...(hasTools ? { tools } : {}),
    temperature: opts.temperature,
    maxOutputTokens: opts.maxTokens,
    stopWhen: isStepCount(maxSteps),
    prepareStep: ({ stepNumber }) =>
      hasTools && stepNumber >= maxSteps - 1 ? { activeTools: [], toolChoice: "none" as const } : undefined,
    abortSignal: signal,
    maxRetries: 1,
    onError: ({ error }) => {
      failure ??= error;
    },
  });

  let stepText = "";
  let reasoning = "";
  let stepHadToolCalls = false;
  let steps = 0;
  let finishReason = "unknown";
  let lastMessage = "";
  // What the model reported per step (OpenAI-compatible `usage`, streamed with include_usage).
  const usage: TurnUsage = { input_tokens: 0, output_tokens: 0, reported: true };
  try {
    for await (const part of result.stream) {
      switch (part.type) {
        case "reasoning-delta":
          // Reasoning arrives in deltas; it is emitted whole at reasoning-end.
          reasoning += part.text;
          break;
        case "reasoning-end":
          if (reasoning.trim()) yield { type: "thinking", content: reasoning.trim() };
          reasoning = "";
          break;
        case "text-delta":
          stepText += part.text;
          break;
        case "tool-call":
          stepHadToolCalls = true;
          // Text said before calling a tool is the model thinking aloud.
          if (stepText.trim()) yield { type: "thinking", content: stepText.trim() };
          stepText = "";
          yield { type: "tool_call", id: part.toolCallId, tool: part.toolName, params: part.input ?? {} };
          break;
        case "tool-result":
          yield {
            type: "tool_result",
            id: part.toolCallId,
            tool: part.toolName,
            result: part.output,
            is_error: isErrorResult(part.output),
          };
          break;
        case "tool-error": {
          // Input the model got wrong (unknown tool, malformed or invalid arguments).
          const message = part.error instanceof Error ? part.error.message : String(part.error);
          yield {
            type: "tool_result",
            id: part.toolCallId,
            tool: part.toolName,
            result: { error: message.slice(0, 1000) },
            is_error: true,
          };
          break;
        }
        case "finish-step": {
          steps += 1;
          finishReason = part.finishReason;
          addUsage(usage, part.usage);
          const text = stepText.trim();
          // Text of the step that ends the turn (no tool calls) is the answer.
          if (text) {
            if (stepHadToolCalls) yield { type: "thinking", content: text };
            else {
              lastMessage = text;
              yield { type: "message", content: text };
            }
          }
          stepText = "";
          stepHadToolCalls = false;
          break;
        }
        case "error":
          failure ??= part.error;
          break;
        case "abort":
          failure ??= signal.reason ?? new Error("aborted");
          break;
        default:
          break;
      }
    }
  } catch (err) {
    failure ??= err;
  }
  if (failure) {
    const e = classifyModelError(failure, opts.modelId);
    yield { type: "error", code: e.code, message: e.message, status: e.status, usage: steps ? usage : { ...usage, reported: false } };
    return;
  }
  if (!lastMessage) {
    yield {
      type: "error",
      code: "MODEL_ERROR",
      message: `Model ${opts.modelId} gave no answer within ${maxSteps} steps (finish reason: ${finishReason})`,
      status: 502,
      usage,
    };
    return;
  }
  yield { type: "done", steps, finish_reason: finishReason, usage };
}
