// Moves of organizations between shards, run by the org's OrgMover Durable Object.
import type { Env } from "../../../platform/env";
import { apiErrorOf } from "../../../platform/durable-objects/failure";
import { orgObject } from "../../../platform/durable-objects/object-names";
import { notFound } from "../../../platform/errors";
import type { MoveJob } from "../../../platform/org-move";

const moverOf = (env: Env, orgId: string) => orgObject(env.ORG_MOVER, orgId, "move");

/** Starts moving the org to `shard` (its writes pause at once); the job, which runs on in the background. */
export async function startOrgMove(env: Env, orgId: string, shard: string): Promise<MoveJob> {
  const started = await moverOf(env, orgId).start(orgId, shard);
  if (!started.ok) throw apiErrorOf(started.error);
  return started.job;
}

/** The org's latest move, running or finished. */
export async function orgMoveStatus(env: Env, orgId: string): Promise<MoveJob> {
  const job = await moverOf(env, orgId).status();
  if (!job) throw notFound(`Organization ${orgId} has no move`, "MOVE_NOT_FOUND");
  return job;
}
