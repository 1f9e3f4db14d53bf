// EHR launches: the console's "Launch app" for an open patient stores the context (patient,
// optional encounter) under an opaque launch value the app receives with `iss`; the app's
// authorization binds it, once, within LAUNCH_SECONDS.
import { and, eq, gt, isNull, lt } from "drizzle-orm";
import type { Database } from "../../platform/db/client";
import { isSecretOf, newSecret, sha256Hex } from "./secrets";
import { type LaunchRow, smartLaunches } from "./tables";

export const LAUNCH_SECONDS = 5 * 60;

export interface NewLaunch {
  orgId: string;
  clientId: string;
  patient: string;
  encounter?: string | undefined;
  createdBy: string;
}

export async function createLaunch(db: Database, input: NewLaunch, now = Date.now()): Promise<{ launch: string; expiresAt: number }> {
  const launch = newSecret("launch");
  const nowSeconds = Math.floor(now / 1000);
  await db.delete(smartLaunches).where(lt(smartLaunches.expiresAt, nowSeconds - 3600));
  const expiresAt = nowSeconds + LAUNCH_SECONDS;
  await db.insert(smartLaunches).values({
    idHash: await sha256Hex(launch),
    orgId: input.orgId,
    clientId: input.clientId,
    patient: input.patient,
    encounter: input.encounter ?? null,
    createdBy: input.createdBy,
    createdAt: new Date(now).toISOString(),
    expiresAt,
    usedAt: null,
  });
  return { launch, expiresAt };
}

/** Takes the launch for `clientId` in `orgId`: its context once, while fresh; undefined otherwise. */
export async function claimLaunch(db: Database, orgId: string, clientId: string, launch: string | undefined, now = Date.now()): Promise<LaunchRow | undefined> {
  if (!isSecretOf("launch", launch)) return undefined;
  const claimed = await db
    .update(smartLaunches)
    .set({ usedAt: new Date(now).toISOString() })
    .where(
      and(
        eq(smartLaunches.idHash, await sha256Hex(launch)),
        eq(smartLaunches.orgId, orgId),
        eq(smartLaunches.clientId, clientId),
        isNull(smartLaunches.usedAt),
        gt(smartLaunches.expiresAt, Math.floor(now / 1000)),
      ),
    )
    .returning();
  return claimed[0];
}
