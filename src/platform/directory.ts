// The organization -> shard directory, in the control database (organizations.shard and
// organizations.moving_to). The request path reads it with the API key (one joined query,
// cached per isolate for PLACEMENT_TTL_MS by the auth middleware); Durable Objects and the
// scheduled handler read it here, with the same TTL. An operator's change (a move) is seen
// everywhere within that TTL, which is why a move waits it out before copying.
import { controlDatabase, emptiestShard, pooledShards, shardConfigurationError, shardNames } from "./shards";

export const PLACEMENT_TTL_MS = 10_000;

export interface Placement {
  orgId: string;
  /** The shard holding the org's rows. */
  shard: string;
  /** The shard an operator is moving the org to; writes are paused meanwhile. */
  movingTo: string | null;
}

const cache = new Map<string, { placement: Placement; until: number }>();

/** The org's placement, or undefined when no such organization exists. */
export async function placementOf(control: D1Database, orgId: string, now = Date.now()): Promise<Placement | undefined> {
  const hit = cache.get(orgId);
  if (hit && hit.until > now) return hit.placement;
  const row = await control
    .prepare("SELECT shard, moving_to FROM organizations WHERE id = ?1")
    .bind(orgId)
    .first<{ shard: string; moving_to: string | null }>();
  if (!row) return undefined;
  const placement = { orgId, shard: row.shard, movingTo: row.moving_to };
  cache.set(orgId, { placement, until: now + PLACEMENT_TTL_MS });
  return placement;
}

/** Drops this isolate's cached placements (an operator change made from this isolate). */
export function forgetPlacements(): void {
  cache.clear();
}

/** Every organization on `shard` (the scheduled handler walks shards, then their orgs). */
export async function orgsOn(control: D1Database, shard: string): Promise<Placement[]> {
  const { results } = await control
    .prepare("SELECT id, shard, moving_to FROM organizations WHERE shard = ?1")
    .bind(shard)
    .all<{ id: string; shard: string; moving_to: string | null }>();
  return results.map((r) => ({ orgId: r.id, shard: r.shard, movingTo: r.moving_to }));
}

/**
 * The shard a new organization goes to: `requested` when given (any declared shard, e.g. a
 * `:dedicated` one bound for a large organization alone), else the pooled shard with the fewest orgs.
 */
export async function shardForNewOrg(env: { DB: D1Database }, requested?: string): Promise<string> {
  const names = shardNames(env);
  if (requested !== undefined) {
    if (!names.includes(requested)) throw shardConfigurationError(`Shard ${JSON.stringify(requested)} is not one of DATA_SHARDS (${names.join(", ")})`);
    return requested;
  }
  const { results } = await controlDatabase(env).prepare("SELECT shard, COUNT(*) AS n FROM organizations GROUP BY shard").all<{ shard: string; n: number }>();
  return emptiestShard(pooledShards(env), new Map(results.map((r) => [r.shard, r.n])));
}
