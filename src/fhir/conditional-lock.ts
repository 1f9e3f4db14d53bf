// Conditional writes (If-None-Exist, conditional update and delete, transactions that
// carry them) first ask "does a match exist?" and then write; two racing writers would
// both see none and both create. They therefore hold the organization's conditional-
// write lease in its OrgGate from the match to the commit. Plain writes never wait.
import type { Env } from "../env";
import { ApiError } from "../errors";
import { orgGate } from "../limits/gate";
import type { Bundle } from "./port";

const KIND = "fhir-conditional";
/** Longer than any single plan + commit; a holder that dies frees the org after this. */
const LEASE_MS = 30_000;
const MAX_WAIT_MS = 20_000;

export async function withConditionalLock<T>(env: Env, orgId: string, write: () => Promise<T>): Promise<T> {
  // In-process tools (the store benchmark) run without Durable Objects, and so without races between isolates.
  if (!env.ORG_GATE) return write();
  const gate = orgGate(env, orgId);
  const holder = crypto.randomUUID();
  const deadline = Date.now() + MAX_WAIT_MS;
  for (let delay = 2; ; delay = Math.min(delay * 2, 50)) {
    if ((await gate.acquireSlot(KIND, holder, 1, LEASE_MS)).acquired) break;
    if (Date.now() > deadline) {
      throw new ApiError(503, "CONDITIONAL_WRITE_BUSY", "Too many conditional writes in progress for this organization; retry shortly", [], { "Retry-After": "1" });
    }
    await new Promise((r) => setTimeout(r, delay));
  }
  try {
    return await write();
  } finally {
    await gate.releaseSlot(KIND, holder);
  }
}

/** Whether a batch or transaction holds an entry whose outcome depends on a match. */
export function hasConditionalEntries(bundle: Bundle): boolean {
  return (bundle.entry ?? []).some((e) => !!e.request && (!!e.request.ifNoneExist || e.request.url.includes("?")) && e.request.method !== "GET");
}
