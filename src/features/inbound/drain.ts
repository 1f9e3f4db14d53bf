// Processes one sender's waiting messages strictly in arrival order. A message
// that fails deterministically (bad content, mapping error) is marked failed and
// the line moves on; a transient failure is retried with backoff and holds the
// line, so no later message of that sender overtakes it.
import { clip } from "../../platform/db/size";
import { ApiError } from "../../platform/errors";
import type { Write } from "../../platform/db/client";
import type { InboundMessageRow } from "./tables";
import type { InboundMessageStore } from "./store";

export interface RoutedResult {
  executions: string[];
  resources: string[];
  /** Records of the runs, committed with the message's status. */
  writes?: Write[];
}

/** Runs a message through whatever consumes it (the org's deployed pipelines); null when nothing does. */
export type MessageHandler = (message: InboundMessageRow) => Promise<RoutedResult | null>;

export const MAX_ATTEMPTS = 6;
/** Messages read per query from the head of a sender's line. */
const PENDING_READ = 20;
const BASE_BACKOFF_MS = 1_000;
const MAX_BACKOFF_MS = 5 * 60_000;

export type DrainOutcome =
  | { state: "idle"; processed: number }
  | { state: "budget-exhausted"; processed: number }
  | { state: "retry-later"; processed: number; retryAt: number };

/** Errors a retry cannot fix: the caller's input is wrong, not the moment. */
function isPermanent(err: unknown): boolean {
  return err instanceof ApiError && err.status < 500 && err.status !== 429;
}

/** Characters of an error kept with a failed message (pipeline failures quote their node's error). */
const MAX_ERROR_CHARS = 8000;

function describe(err: unknown): { code: string; message: string } {
  if (err instanceof ApiError) return { code: err.code, message: clip(err.message, MAX_ERROR_CHARS) };
  return { code: "PROCESSING_ERROR", message: clip(err instanceof Error ? err.message : String(err), MAX_ERROR_CHARS) };
}

export function backoffMs(attempts: number): number {
  return Math.min(MAX_BACKOFF_MS, BASE_BACKOFF_MS * 2 ** (attempts - 1));
}

export async function drainSender(
  store: InboundMessageStore,
  sender: string,
  handle: MessageHandler,
  opts: { budgetMs: number; now?: () => number; onMessage?: (message: InboundMessageRow, status: "processed" | "unrouted" | "failed" | "retrying", failure?: { error: { code: string; message: string; at: string }; attempts: number }) => void },
): Promise<DrainOutcome> {
  const seen = opts.onMessage ?? (() => {});
  const now = opts.now ?? Date.now;
  const deadline = now() + opts.budgetMs;
  let processed = 0;
  // The line's head, read a few messages at a time: only this drain changes their status.
  let queue: InboundMessageRow[] = [];
  for (;;) {
    if (now() >= deadline) return { state: "budget-exhausted", processed };
    if (!queue.length) queue = await store.nextPending(sender, PENDING_READ);
    const message = queue.shift();
    if (!message) return { state: "idle", processed };
    // This run counts as an attempt whatever its outcome, so a message processed first time shows 1.
    const attempts = message.attempts + 1;
    try {
      const result = await handle(await store.withRaw(message));
      // Nothing consumed it: kept apart from processed messages so it can be found and reprocessed.
      if (result) await store.markProcessed(message.id, result.executions, result.resources, attempts, result.writes);
      else await store.markUnrouted(message.id, attempts);
      seen(message, result ? "processed" : "unrouted");
      processed++;
    } catch (err) {
      const error = { ...describe(err), at: new Date(now()).toISOString() };
      if (isPermanent(err) || attempts >= MAX_ATTEMPTS) {
        await store.markFailed(message.id, error, attempts);
        seen(message, "failed", { error, attempts });
        processed++;
        continue;
      }
      await store.recordAttempt(message.id, error, attempts);
      seen(message, "retrying");
      return { state: "retry-later", processed, retryAt: now() + backoffMs(attempts) };
    }
  }
}
