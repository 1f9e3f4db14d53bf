// While an operator moves an organization between shards its writes are refused (503
// ORG_MOVING with Retry-After) and its reads go on from the old shard, so the copy being
// made cannot miss a row. What counts as a write: every unsafe method but FHIR's
// search-by-POST (`.../_search`), which reads.
import { orgMoving } from "./errors";
import type { Placement } from "./directory";

/** Seconds a client is asked to wait: a move of a typical org takes well under a minute. */
export const MOVE_RETRY_AFTER_SECONDS = 30;

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

export function isWrite(method: string, path: string): boolean {
  return !SAFE_METHODS.has(method.toUpperCase()) && !path.endsWith("/_search");
}

/** Throws 503 ORG_MOVING when the org is being moved and the request writes. */
export function checkWritable(placement: Placement, method: string, path: string): void {
  if (placement.movingTo !== null && isWrite(method, path)) throw orgMoving(MOVE_RETRY_AFTER_SECONDS);
}
