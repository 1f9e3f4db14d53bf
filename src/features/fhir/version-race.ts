// Writes without If-Match that lose a race for a version. Two writers of one resource that both
// planned its next version collide at commit (the history key refuses the second: 409
// VERSION_CONFLICT). The client of an update without If-Match asked for no version, so the loser
// runs again on the new current version, as it would have a moment later (HAPI retries the same
// way; Medplum locks the row). Retried optimistically, 50 writers at once kept colliding: each
// round only one wins, and 24-33 of 50 ran out of attempts. So a loser retries holding the write
// lease of the resources it collided on (the org's OrgGate, as conditional creates hold theirs):
// the losers take turns, each on the version the previous one committed, and collide only with
// writers still on their first, optimistic, attempt. Bounded: UPDATE_ATTEMPTS passes under the
// lease, and the lease is waited for as long as a conditional one (then 503). With If-Match the
// collision stays a 412 (the precondition no longer holds) and nothing is retried.
import type { Env } from "../../platform/env";
import { ApiError } from "../../platform/errors";
import { holding } from "./conditional-lock";

/** Passes of an update under its write lease that still collide with writers on their first attempt. */
const UPDATE_ATTEMPTS = 5;

/** A commit refused because a concurrent writer took the version it planned. */
export class VersionConflict extends ApiError {
  constructor(
    /** `Type/id` of every resource the refused commit wrote. */
    readonly resources: string[],
  ) {
    super(409, "VERSION_CONFLICT", "The resource was changed by another request at the same time; retry with the current version");
  }
}

const busy = () => new ApiError(503, "WRITE_BUSY", "Too many concurrent writes of the same resource in progress; retry shortly", [], { "Retry-After": "1" });

async function retried<T>(run: () => Promise<T>, attempts: number): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await run();
    } catch (e) {
      if (attempt >= attempts || !(e instanceof VersionConflict)) throw e;
    }
  }
}

/** Runs `run` (a write without If-Match when `enabled`), running it again after a lost race as above. */
export async function lastWriterWins<T>(env: Env, orgId: string, enabled: boolean, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (e) {
    if (!enabled || !(e instanceof VersionConflict)) throw e;
    // In-process tools run without Durable Objects, and so without racing isolates: plain retries.
    if (!env.ORG_GATE) return retried(run, UPDATE_ATTEMPTS);
    const keys = [...new Set(e.resources)].map((r) => `write:${r}`);
    return holding(env, orgId, keys, () => retried(run, UPDATE_ATTEMPTS), busy);
  }
}
