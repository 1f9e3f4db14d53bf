// Fits a conversation's history into the model's context window: the newest
// turns are kept whole, older ones are dropped and a note says how many, so the
// model knows the conversation is longer than what it sees.
import type { ModelMessage } from "ai";

export interface HistoryMessage {
  role: "user" | "assistant";
  content: string;
}

/** A deliberately pessimistic estimate (about 4 characters per token, plus framing). */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 3.5) + 4;
}

const TOKENS_PER_TOOL = 250;

export interface Budget {
  contextWindow: number;
  maxOutputTokens: number;
  system: string;
  current: string;
  toolCount: number;
}

export function historyBudget(b: Budget): number {
  return (
    b.contextWindow -
    b.maxOutputTokens -
    estimateTokens(b.system) -
    estimateTokens(b.current) -
    b.toolCount * TOKENS_PER_TOOL
  );
}

export function fitHistory(history: HistoryMessage[], budgetTokens: number): { messages: ModelMessage[]; dropped: number } {
  let used = 0;
  let start = history.length;
  // Walk back from the newest; never start on an assistant turn with its question cut off.
  while (start > 0) {
    const cost = estimateTokens(history[start - 1]!.content);
    if (used + cost > budgetTokens) break;
    used += cost;
    start -= 1;
  }
  while (start < history.length && history[start]!.role === "assistant") start += 1;
  const kept: ModelMessage[] = history.slice(start).map((m) => ({ role: m.role, content: m.content }));
  const dropped = start;
  if (dropped > 0) {
    kept.unshift({
      role: "user",
      content: `(Note: ${dropped} earlier messages of this conversation are not shown because of the context size.)`,
    });
    kept.splice(1, 0, { role: "assistant", content: "Understood." });
  }
  return { messages: kept, dropped };
}
