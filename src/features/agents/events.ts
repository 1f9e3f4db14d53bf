// The events one agent turn produces, shared by the SSE stream, the
// non-streaming reasoning_steps answer and the conversation history.

export type AgentEvent =
  | { type: "thinking"; content: string }
  | { type: "tool_call"; id: string; tool: string; params: unknown }
  | { type: "tool_result"; id: string; tool: string; result: unknown; is_error: boolean }
  | { type: "message"; content: string }
  | { type: "done"; steps: number; finish_reason: string; usage?: TurnUsage }
  | { type: "error"; code: string; message: string; status: number; usage?: TurnUsage };

/** Tokens the model reported for a turn's calls (summed over its steps); `reported` is false when any step reported none. */
export interface TurnUsage {
  input_tokens: number;
  output_tokens: number;
  reported: boolean;
}

export interface ReasoningStep {
  type: "thinking" | "tool_call" | "tool_result";
  content: string;
  tool?: string;
  params?: unknown;
  result?: unknown;
}

export interface TurnResult {
  response: string;
  reasoning_steps: ReasoningStep[];
  steps: number;
  finish_reason: string;
}

/** Folds a finished turn's events into the non-streaming answer; an error event throws. */
export async function collectTurn(
  events: AsyncIterable<AgentEvent>,
  toError: (e: Extract<AgentEvent, { type: "error" }>) => Error,
): Promise<TurnResult> {
  const steps: ReasoningStep[] = [];
  const messages: string[] = [];
  let done: Extract<AgentEvent, { type: "done" }> | undefined;
  for await (const e of events) {
    switch (e.type) {
      case "thinking":
        steps.push({ type: "thinking", content: e.content });
        break;
      case "tool_call":
        steps.push({ type: "tool_call", content: `Calling ${e.tool}`, tool: e.tool, params: e.params });
        break;
      case "tool_result":
        steps.push({
          type: "tool_result",
          content: e.is_error ? `${e.tool} failed` : `${e.tool} returned`,
          tool: e.tool,
          result: e.result,
        });
        break;
      case "message":
        messages.push(e.content);
        break;
      case "done":
        done = e;
        break;
      case "error":
        throw toError(e);
    }
  }
  return {
    response: messages.join("\n\n"),
    reasoning_steps: steps,
    steps: done?.steps ?? 0,
    finish_reason: done?.finish_reason ?? "unknown",
  };
}
