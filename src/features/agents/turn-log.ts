// Records every model turn (agents' chats, conversations, invocations and the copilot's chat) in
// agent_turns as it ends: the model's reported token usage, or an estimate flagged as one when
// the model reported none, and failures (model error, timeout, abandoned stream) with their reason.
import { and, eq, sql } from "drizzle-orm";
import type { OrgData } from "../../platform/org-data";
import { logger } from "../../platform/observability/log";
import { clip } from "../../platform/db/size";
import type { AgentEvent, TurnUsage } from "./events";
import { agentTurns } from "./tables";

/** Characters per token of the estimate used when a model reports no usage. */
export const CHARS_PER_TOKEN = 4;

export const estimateTokens = (chars: number) => Math.ceil(chars / CHARS_PER_TOKEN);

export interface TurnMeta {
  /** The agent's id, or "copilot". */
  agentId: string;
  conversationId?: string;
  keyId: string;
  model: string;
  /** Characters of what the model was sent (system prompt, history, message): the estimate's input. */
  promptChars: number;
}

interface Tally {
  toolCalls: number;
  toolErrors: number;
  answerChars: number;
  end?: Extract<AgentEvent, { type: "done" | "error" }>;
}

/** The row of a finished turn. */
export function turnRow(orgId: string, meta: TurnMeta, tally: Tally, now = new Date().toISOString()) {
  const usage: TurnUsage | undefined = tally.end?.usage;
  const reported = !!usage?.reported;
  const failed = tally.end?.type !== "done";
  const error = tally.end?.type === "error" ? tally.end : undefined;
  return {
    orgId,
    id: crypto.randomUUID(),
    agentId: meta.agentId,
    conversationId: meta.conversationId ?? null,
    keyId: meta.keyId,
    model: meta.model,
    status: failed ? ("failed" as const) : ("completed" as const),
    errorCode: failed ? (error?.code ?? "TURN_ABORTED") : null,
    errorMessage: failed ? clip(error?.message ?? "The client stopped reading before the turn ended", 500) : null,
    inputTokens: reported ? usage!.input_tokens : estimateTokens(meta.promptChars),
    outputTokens: reported ? usage!.output_tokens : estimateTokens(tally.answerChars),
    usageReported: reported,
    steps: tally.end?.type === "done" ? tally.end.steps : 0,
    toolCalls: tally.toolCalls,
    toolErrors: tally.toolErrors,
    createdAt: now,
  };
}

/**
 * Passes a turn's events through unchanged and records the turn once it ends, however it ends
 * (done, error, or the consumer stopping early). A failed record is logged, never the turn's failure.
 */
export async function* recordingTurn(data: OrgData, meta: TurnMeta, events: AsyncIterable<AgentEvent>): AsyncGenerator<AgentEvent> {
  const tally: Tally = { toolCalls: 0, toolErrors: 0, answerChars: 0 };
  try {
    for await (const e of events) {
      if (e.type === "tool_call") tally.toolCalls++;
      else if (e.type === "tool_result" && e.is_error) tally.toolErrors++;
      else if (e.type === "thinking" || e.type === "message") tally.answerChars += e.content.length;
      else if (e.type === "done" || e.type === "error") tally.end = e;
      yield e;
    }
  } finally {
    try {
      await data.db.insert(agentTurns).values(turnRow(data.orgId, meta, tally));
    } catch (err) {
      logger(data.env).error("agent turn record failed", { org: data.orgId, agent: meta.agentId, error_message: String(err) });
    }
  }
}

export interface TurnTotals {
  turns: number;
  failed: number;
  /** Failed turns by their code. */
  failures: Record<string, number>;
  inputTokens: number;
  outputTokens: number;
  /** Turns whose counts are estimates (the model reported no usage). */
  estimatedTurns: number;
  toolCalls: number;
  toolErrors: number;
}

/** The recorded turns of one agent (or "copilot"), summed per outcome in one query. */
export async function turnTotals(data: OrgData, agentId: string): Promise<TurnTotals> {
  const rows = await data.db
    .select({
      status: agentTurns.status,
      code: agentTurns.errorCode,
      reported: agentTurns.usageReported,
      turns: sql<number>`count(*)`,
      input: sql<number>`sum(${agentTurns.inputTokens})`,
      output: sql<number>`sum(${agentTurns.outputTokens})`,
      toolCalls: sql<number>`sum(${agentTurns.toolCalls})`,
      toolErrors: sql<number>`sum(${agentTurns.toolErrors})`,
    })
    .from(agentTurns)
    .where(and(eq(agentTurns.orgId, data.orgId), eq(agentTurns.agentId, agentId)))
    .groupBy(agentTurns.status, agentTurns.errorCode, agentTurns.usageReported);
  const totals: TurnTotals = { turns: 0, failed: 0, failures: {}, inputTokens: 0, outputTokens: 0, estimatedTurns: 0, toolCalls: 0, toolErrors: 0 };
  for (const r of rows) {
    totals.turns += r.turns;
    totals.inputTokens += r.input;
    totals.outputTokens += r.output;
    totals.toolCalls += r.toolCalls;
    totals.toolErrors += r.toolErrors;
    if (!r.reported) totals.estimatedTurns += r.turns;
    if (r.status === "failed") {
      totals.failed += r.turns;
      const code = r.code ?? "UNKNOWN";
      totals.failures[code] = (totals.failures[code] ?? 0) + r.turns;
    }
  }
  return totals;
}
