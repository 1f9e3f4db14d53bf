// Refresh tokens: opaque, stored as their SHA-256, used once. Each use marks the token used and
// issues its successor in the same grant (its family). A token used a second time means two
// parties hold it (the client's and a thief's copy): the whole grant is revoked, the successor
// included (OAuth 2.0 Security BCP, refresh token rotation with reuse detection). The claim is one
// conditional UPDATE, so two racing uses of one token cannot both win.
import { and, eq, isNull, lt } from "drizzle-orm";
import type { Database } from "../../../platform/db/client";
import { revokeGrant } from "../grants";
import { isSecretOf, newSecret, sha256Hex } from "../secrets";
import { type RefreshTokenRow, smartRefreshTokens } from "../tables";

/** A refresh token's life from its issue (each rotation starts a new one). */
export const REFRESH_TOKEN_SECONDS = 30 * 24 * 60 * 60;

export async function issueRefreshToken(db: Database, grant: { id: string; orgId: string; clientId: string }, now = Date.now()): Promise<string> {
  const token = newSecret("refresh");
  const nowSeconds = Math.floor(now / 1000);
  await db.insert(smartRefreshTokens).values({
    tokenHash: await sha256Hex(token),
    grantId: grant.id,
    orgId: grant.orgId,
    clientId: grant.clientId,
    createdAt: new Date(now).toISOString(),
    expiresAt: nowSeconds + REFRESH_TOKEN_SECONDS,
    usedAt: null,
  });
  // The family's expired tokens go (used ones are kept until then: they detect reuse).
  await db.delete(smartRefreshTokens).where(and(eq(smartRefreshTokens.grantId, grant.id), lt(smartRefreshTokens.expiresAt, nowSeconds)));
  return token;
}

export async function findRefreshToken(db: Database, orgId: string, token: string | undefined): Promise<RefreshTokenRow | undefined> {
  if (!isSecretOf("refresh", token)) return undefined;
  return db
    .select()
    .from(smartRefreshTokens)
    .where(and(eq(smartRefreshTokens.tokenHash, await sha256Hex(token)), eq(smartRefreshTokens.orgId, orgId)))
    .get();
}

export type Rotation = { ok: true; row: RefreshTokenRow } | { ok: false; reason: "unknown" | "expired" | "reused" | "other-client" };

/**
 * Claims `token` for `clientId`: ok once; a second use revokes its grant. A token of another client
 * (or org) is unknown to it and changes nothing.
 */
export async function claimRefreshToken(
  db: Database,
  orgId: string,
  clientId: string,
  token: string | undefined,
  now = Date.now(),
  /** Checks before an unused token is used up (it may throw: the token stays unused). */
  beforeClaim?: (row: RefreshTokenRow) => Promise<void>,
): Promise<Rotation> {
  const row = await findRefreshToken(db, orgId, token);
  if (!row) return { ok: false, reason: "unknown" };
  if (row.clientId !== clientId) return { ok: false, reason: "other-client" };
  if (row.usedAt === null) {
    if (row.expiresAt <= Math.floor(now / 1000)) return { ok: false, reason: "expired" };
    await beforeClaim?.(row);
  }
  const claimed = await db
    .update(smartRefreshTokens)
    .set({ usedAt: new Date(now).toISOString() })
    .where(and(eq(smartRefreshTokens.tokenHash, row.tokenHash), isNull(smartRefreshTokens.usedAt)))
    .returning();
  if (claimed.length === 1) return { ok: true, row: claimed[0]! };
  await revokeGrant(db, row.grantId, "refresh token reused", now);
  return { ok: false, reason: "reused" };
}

/** Revokes the token's grant (RFC 7009: a refresh token's revocation ends its family); whether it was one of `clientId`'s. */
export async function revokeRefreshToken(db: Database, orgId: string, clientId: string | undefined, token: string, now = Date.now()): Promise<boolean> {
  const row = await findRefreshToken(db, orgId, token);
  if (!row || (clientId !== undefined && row.clientId !== clientId)) return false;
  await revokeGrant(db, row.grantId, "revoked by the client (RFC 7009)", now);
  return true;
}
