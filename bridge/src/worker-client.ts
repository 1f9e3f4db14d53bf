// The bridge side of the forwarding contract: POST a batch to its protocol's target path
// (HL7 v2: {WORKER_URL}/api/v1/hl7/messages), and the answer classified as settled, retry
// later, or a configuration problem. Every target answers with per-message results.
import { createHash } from "node:crypto";
import { retryAfterMs } from "./backoff";
import type { QueuedMessage, Settlement } from "./message-queue";
import type { ForwardTarget } from "./protocol";

export interface WorkerClientOptions {
  workerUrl: string;
  apiKey: string;
  orgId: string;
  requestTimeoutMs: number;
}

export type SendOutcome =
  /** 200: verdicts for the ids the Worker answered; `missing` lists ids it did not. */
  | { kind: "settled"; settlements: Settlement[]; missing: string[] }
  /** Network error, timeout, 5xx, 429 or an unreadable 200: send the same batch again later. */
  | { kind: "retry"; status: number | null; retryAfterMs: number | null; reason: string }
  /** 401/403 or another 4xx: the bridge is misconfigured; keep the queue and retry slowly. */
  | { kind: "misconfigured"; status: number; reason: string };

/** Idempotency-Key for a batch: derived from its message ids, so a resend of the same batch repeats it. */
export function batchId(messages: QueuedMessage[]): string {
  const hex = createHash("sha256")
    .update(messages.map((m) => m.id).join(","))
    .digest("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

export async function sendBatch(
  options: WorkerClientOptions,
  target: ForwardTarget,
  messages: QueuedMessage[],
  stop: AbortSignal,
): Promise<SendOutcome> {
  const body = JSON.stringify(target.body(messages));
  let response: Response;
  let text: string;
  try {
    response = await fetch(new URL(target.path, options.workerUrl), {
      method: "POST",
      headers: {
        authorization: `Bearer ${options.apiKey}`,
        "x-organization-id": options.orgId,
        "content-type": "application/json",
        "idempotency-key": batchId(messages),
      },
      body,
      signal: AbortSignal.any([stop, AbortSignal.timeout(options.requestTimeoutMs)]),
    });
    text = await response.text();
  } catch (error) {
    return { kind: "retry", status: null, retryAfterMs: null, reason: `request failed: ${describe(error)}` };
  }
  const status = response.status;
  const summary = `HTTP ${status}: ${text.slice(0, 300)}`;
  if (status === 429 || status >= 500) {
    return { kind: "retry", status, retryAfterMs: retryAfterMs(response.headers.get("retry-after")), reason: summary };
  }
  if (status === 401 || status === 403 || status !== 200) return { kind: "misconfigured", status, reason: summary };
  const settlements = readResults(text, target, messages);
  if (!settlements) return { kind: "retry", status, retryAfterMs: null, reason: `unreadable results: ${summary}` };
  const answered = new Set(settlements.map((s) => s.id));
  return { kind: "settled", settlements, missing: messages.map((m) => m.id).filter((id) => !answered.has(id)) };
}

function readResults(text: string, target: ForwardTarget, messages: QueuedMessage[]): Settlement[] | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return null;
  }
  if (target.readResults) return target.readResults(parsed, messages);
  const ids = new Set(messages.map((m) => m.id));
  const results = (parsed as { results?: unknown })?.results;
  if (!Array.isArray(results)) return null;
  const settlements: Settlement[] = [];
  for (const entry of results as Record<string, unknown>[]) {
    const id = entry?.id;
    if (typeof id !== "string" || !ids.has(id)) continue;
    const serverMessageId = typeof entry.message_id === "string" ? entry.message_id : null;
    if (entry.status === "accepted" || entry.status === "duplicate") {
      settlements.push({ id, status: entry.status, serverMessageId });
    } else if (entry.status === "rejected") {
      const error = (entry.error ?? {}) as { code?: unknown; message?: unknown };
      settlements.push({
        id,
        status: "rejected",
        code: typeof error.code === "string" ? error.code : "REJECTED",
        message: typeof error.message === "string" ? error.message : "rejected by the Worker",
      });
    }
  }
  return settlements;
}

function describe(error: unknown): string {
  if (error instanceof Error) {
    const cause = (error as Error & { cause?: unknown }).cause;
    return cause instanceof Error ? `${error.message} (${cause.message})` : `${error.name}: ${error.message}`;
  }
  return String(error);
}
