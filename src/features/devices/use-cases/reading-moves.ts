// Readings another patient's reading took over before a reading's identity named its device link
// (the data migration 0017 found them in the Observations' history): listed for the organization,
// and restored on request. Restoring gives the first patient back the reading as it stood before
// the move: a new Observation from the version before it (under today's identifier, so the same
// reading arriving again meets it), and its sample in the vitals. The Observation that moved stays
// what it became, the second patient's reading; nothing is deleted.
import { and, asc, count, eq, isNull, sql } from "drizzle-orm";
import type { OrgContext } from "../../../platform/org-context";
import { database } from "../../../platform/db/client";
import type { Env } from "../../../platform/env";
import { shardDatabase, shardNames } from "../../../platform/shards";
import type { Resource } from "../../fhir";
import type { Principal } from "../../tenancy";
import { identifierQuery, READING_IDENTIFIER_SYSTEM, readingIdentifierOf, sampleKeyOf } from "../observation";
import { recordSamples } from "../store/time-series";
import { type DeviceReadingMoveRow, deviceReadingMoves } from "../tables";

/** Every shard's organizations with moved readings (the operator's report after deploying the migration). */
export async function readingMovesByOrg(env: Env): Promise<{ orgId: string; shard: string; moves: number; unrestored: number }[]> {
  const perShard = await Promise.all(
    shardNames(env).map(async (shard) => {
      const rows = await database(shardDatabase(env, shard))
        .select({ orgId: deviceReadingMoves.orgId, moves: count(), unrestored: sql<number>`sum(${deviceReadingMoves.restoredObservationId} IS NULL)` })
        .from(deviceReadingMoves)
        .groupBy(deviceReadingMoves.orgId)
        .orderBy(deviceReadingMoves.orgId);
      return rows.map((r) => ({ ...r, shard, unrestored: Number(r.unrestored) }));
    }),
  );
  return perShard.flat();
}

export async function listReadingMoves(ctx: OrgContext, limit: number, offset: number): Promise<{ rows: DeviceReadingMoveRow[]; total: number; unrestored: number }> {
  const mine = eq(deviceReadingMoves.orgId, ctx.orgId);
  const [rows, [all], [open]] = await Promise.all([
    ctx.db.select().from(deviceReadingMoves).where(mine).orderBy(asc(deviceReadingMoves.movedAt), asc(deviceReadingMoves.observationId)).limit(limit).offset(offset),
    ctx.db.select({ n: count() }).from(deviceReadingMoves).where(mine),
    ctx.db.select({ n: count() }).from(deviceReadingMoves).where(and(mine, isNull(deviceReadingMoves.restoredObservationId))),
  ]);
  return { rows, total: all?.n ?? 0, unrestored: open?.n ?? 0 };
}

/**
 * The reading as its first patient had it: the version before the move, without its id and meta,
 * its identifier naming the device it came from (platform|device|record|metric).
 */
function restoredReading(before: Resource, fromDevice: string): Resource | undefined {
  const old = readingIdentifierOf(before);
  const cut = old?.indexOf("|") ?? -1;
  if (!old || cut < 0) return undefined;
  const { id: _id, meta: _meta, ...content } = before;
  const value = old.startsWith(`${old.slice(0, cut)}|${fromDevice}|`) ? old : `${old.slice(0, cut)}|${fromDevice}|${old.slice(cut + 1)}`;
  return { ...content, identifier: [{ system: READING_IDENTIFIER_SYSTEM, value }] };
}

const BATCH = 50;

/** Restores one move; false when its earlier version cannot be read back as a reading. */
async function restoreMove(ctx: OrgContext, fhir: ReturnType<OrgContext["fhir"]>, move: DeviceReadingMoveRow): Promise<boolean> {
  const before = await fhir.vread("Observation", move.observationId, String(move.versionId - 1)).catch(() => undefined);
  const reading = before && move.fromDeviceId ? restoredReading(before, move.fromDeviceId) : undefined;
  if (!reading) return false;
  const { resource } = await fhir.create(reading, { ifNoneExist: identifierQuery(readingIdentifierOf(reading) as string) });
  const key = sampleKeyOf(resource);
  const value = (resource.valueQuantity as { value?: unknown } | undefined)?.value;
  if (key && typeof value === "number" && !resource.component && resource.status !== "entered-in-error") await recordSamples(ctx.d1, ctx.orgId, [{ ...key, value }]);
  await ctx.db
    .update(deviceReadingMoves)
    .set({ restoredObservationId: resource.id as string, restoredAt: new Date().toISOString() })
    .where(and(eq(deviceReadingMoves.orgId, ctx.orgId), eq(deviceReadingMoves.observationId, move.observationId), eq(deviceReadingMoves.versionId, move.versionId)));
  return true;
}

/** Restores every move not restored yet, oldest first: how many were, and how many could not be (their earlier version unreadable). */
export async function restoreReadingMoves(ctx: OrgContext, principal: Principal): Promise<{ restored: number; skipped: number }> {
  const fhir = ctx.fhir(principal);
  const open = and(eq(deviceReadingMoves.orgId, ctx.orgId), isNull(deviceReadingMoves.restoredObservationId));
  let restored = 0;
  let skipped = 0;
  for (;;) {
    // Restored moves leave the open set; the skipped ones stay at its head, in order.
    const moves = await ctx.db.select().from(deviceReadingMoves).where(open).orderBy(asc(deviceReadingMoves.movedAt), asc(deviceReadingMoves.observationId), asc(deviceReadingMoves.versionId)).limit(BATCH).offset(skipped);
    if (!moves.length) return { restored, skipped };
    for (const move of moves) {
      if (await restoreMove(ctx, fhir, move)) restored += 1;
      else skipped += 1;
    }
  }
}
