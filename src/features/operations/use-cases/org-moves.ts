// Moves of organizations between shards, run by the org's OrgMover Durable Object. Each start,
// refused or not, leaves an AuditEvent (organization.move, the operator as agent, from and to),
// but for one refused because another move runs.
import type { OrgContexts } from "../../../platform/org-context";
import type { Env } from "../../../platform/env";
import { apiErrorOf } from "../../../platform/durable-objects/failure";
import { orgObject } from "../../../platform/durable-objects/object-names";
import { notFound } from "../../../platform/errors";
import type { MoveJob } from "../../../platform/org-move";
import { operatorPrincipal } from "../../audit";
import { recordManagementAction } from "../../audit";

const moverOf = (env: Env, orgId: string) => orgObject(env.ORG_MOVER, orgId, "move");

/** Starts moving the org to `shard` (its writes pause at once); the job, which runs on in the background. */
export async function startOrgMove(env: Env, contexts: OrgContexts, orgId: string, shard: string): Promise<MoveJob> {
  const started = await moverOf(env, orgId).start(orgId, shard);
  const principal = operatorPrincipal(orgId);
  if (!started.ok) {
    const refused = apiErrorOf(started.error);
    // Not while another move runs: its copy is being verified, and an event appended to it after
    // the switch would fail that verification (the refusal is in the log and the CLI's output).
    if (refused.code !== "ORG_MOVING") {
      // An unknown organization has no trail to write to (404 ORGANIZATION_NOT_FOUND).
      const trail = await contexts.forOrg(orgId);
      await recordManagementAction(trail, principal, { action: "organization.move", entityId: orgId, outcome: refused.status < 500 ? "4" : "8", reason: `${refused.code}: ${refused.message}`, detail: { to: shard } });
    }
    throw refused;
  }
  const { job } = started;
  // The org is moving now: its AuditEvents go to its pending log, which the move carries to the new shard.
  const moving = contexts.at({ orgId, shard: job.from, movingTo: job.to });
  await recordManagementAction(moving, principal, { action: "organization.move", entityId: orgId, outcome: "0", detail: { from: job.from, to: job.to, job_id: job.id } }, { pendingLog: true });
  return job;
}

/** The org's latest move, running or finished. */
export async function orgMoveStatus(env: Env, orgId: string): Promise<MoveJob> {
  const job = await moverOf(env, orgId).status();
  if (!job) throw notFound(`Organization ${orgId} has no move`, "MOVE_NOT_FOUND");
  return job;
}
