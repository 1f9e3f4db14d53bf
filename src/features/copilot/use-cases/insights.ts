// GET /copilot/insights/{agentId}: how an agent is really used, read from its conversations
// (the index in D1, each conversation's stored turns with their tool calls and results) and
// turned into recommendations. Tokens and failed turns come from the turn log (agent_turns: the
// model's reported usage per turn, estimates flagged); an agent whose conversations predate the
// log gets an estimate from the stored text (about 4 characters a token), labelled so.
import type { OrgContext } from "../../../platform/org-context";
import { AgentStore, CHARS_PER_TOKEN, conversationStub, loadAgent, type ReasoningStep, turnTotals } from "../../agents";

/** The most recent conversations read for one answer. */
export const INSIGHT_CONVERSATIONS = 50;
const MESSAGES_PER_CONVERSATION = 200;

export interface ToolUsage {
  calls: number;
  errors: number;
}

export interface AgentInsights {
  agent_id: string;
  conversations: { total: number; analyzed: number; messages: number; average_turns: number };
  tool_usage: Record<string, ToolUsage>;
  unused_tools: string[];
  turns: { total: number; completed: number; failed: number; failures: Record<string, number> };
  errors: { tool_errors: number; error_rate: number | null };
  tokens: { estimated: boolean; estimated_turns: number; source: "reported" | "stored_text"; input: number; output: number; average_per_turn: number };
  recommendations: string[];
}

function steps(text: string | null): ReasoningStep[] {
  if (!text) return [];
  try {
    const parsed = JSON.parse(text) as unknown;
    return Array.isArray(parsed) ? (parsed as ReasoningStep[]) : [];
  } catch {
    return [];
  }
}

const isError = (r: unknown) => typeof r === "object" && r !== null && "error" in r;

export async function agentInsights(ctx: OrgContext, agentId: string): Promise<AgentInsights> {
  const { orgId } = ctx;
  const agent = await loadAgent(ctx.db, orgId, agentId);
  const { rows, total } = await new AgentStore(ctx.db).listConversations(orgId, agent.id, INSIGHT_CONVERSATIONS, 0);
  const usage = new Map<string, ToolUsage>();
  let messages = 0;
  let turns = 0;
  let inputChars = 0;
  let outputChars = 0;
  let toolErrors = 0;
  let toolCalls = 0;
  for (const conv of rows) {
    const stored = await conversationStub(ctx.env, orgId, agent.id, conv.id).messages(orgId, MESSAGES_PER_CONVERSATION, 0);
    for (const m of stored.messages) {
      messages++;
      if (m.role === "user") {
        turns++;
        inputChars += m.content.length;
        continue;
      }
      outputChars += m.content.length;
      for (const s of steps(m.reasoning_steps)) {
        if (!s.tool) continue;
        const u = usage.get(s.tool) ?? { calls: 0, errors: 0 };
        usage.set(s.tool, u);
        if (s.type === "tool_call") {
          u.calls++;
          toolCalls++;
        } else if (s.type === "tool_result") {
          inputChars += JSON.stringify(s.result ?? "").length;
          if (isError(s.result)) {
            u.errors++;
            toolErrors++;
          }
        }
      }
    }
  }
  const logged = await turnTotals(ctx, agent.id);
  const fromLog = logged.turns > 0;
  const tokensIn = fromLog ? logged.inputTokens : Math.round(inputChars / CHARS_PER_TOKEN);
  const tokensOut = fromLog ? logged.outputTokens : Math.round(outputChars / CHARS_PER_TOKEN);
  const turnCount = fromLog ? logged.turns : turns;
  const unused = agent.tools.filter((t) => !usage.get(t)?.calls);
  const recommendations: string[] = [];
  if (!total) recommendations.push("No conversations yet: try the agent with POST /api/agents/{id}/chat before deploying it");
  for (const [tool, u] of usage) {
    if (u.errors && u.errors / Math.max(u.calls, 1) >= 0.2) recommendations.push(`${tool} failed in ${u.errors} of ${u.calls} calls: check its configuration or describe its parameters better in the prompt`);
    if (!agent.tools.includes(tool)) recommendations.push(`${tool} was called but is no longer assigned`);
  }
  if (total && unused.length) recommendations.push(`Never used: ${unused.join(", ")}; unassign them to shorten every prompt`);
  const perTurn = turnCount ? Math.round((tokensIn + tokensOut) / turnCount) : 0;
  if (logged.failed && logged.failed / logged.turns >= 0.2) {
    const reasons = Object.entries(logged.failures).map(([code, n]) => `${code} ×${n}`).join(", ");
    recommendations.push(`${logged.failed} of ${logged.turns} turns failed (${reasons}): check the model endpoint, the timeout and max_steps`);
  }
  if (perTurn > agent.modelConfig.max_tokens * 4) recommendations.push(`Turns average about ${perTurn} tokens: long histories are trimmed; start new conversations for new topics`);
  return {
    agent_id: agent.id,
    conversations: { total, analyzed: rows.length, messages, average_turns: rows.length ? turns / rows.length : 0 },
    tool_usage: Object.fromEntries(usage),
    unused_tools: unused,
    errors: { tool_errors: toolErrors, error_rate: toolCalls ? toolErrors / toolCalls : null },
    turns: { total: logged.turns, completed: logged.turns - logged.failed, failed: logged.failed, failures: logged.failures },
    tokens: {
      estimated: !fromLog || logged.estimatedTurns > 0,
      estimated_turns: fromLog ? logged.estimatedTurns : turns,
      source: fromLog ? "reported" : "stored_text",
      input: tokensIn,
      output: tokensOut,
      average_per_turn: perTurn,
    },
    recommendations,
  };
}
