// The device links' tokens on the org's shard: sealed at rest, found by device or by the
// vendor's user id, and replaced only by compare-and-swap on `version`.
import { and, count, desc, eq, getTableColumns, isNull, lt, or } from "drizzle-orm";
import type { PlatformTokens } from "../../platform-adapter";
import { decryptCredentials, encryptCredentials } from "../../../connectors";
import type { OrgData } from "../../../../platform/org-data";
import { type DevicePlatformLinkRow, devicePlatformLinks } from "./tables";

export interface PlatformLink {
  readonly deviceId: string;
  readonly kind: string;
  readonly patientId: string;
  readonly platformUserId: string;
  readonly tokens: PlatformTokens;
  readonly version: number;
  readonly status: "active" | "inactive";
  readonly statusReason?: string;
}

const aad = (orgId: string, deviceId: string) => `device-platform-link:${orgId}:${deviceId}`;

function tokensJson(tokens: PlatformTokens): Record<string, string> {
  const out: Record<string, string> = { accessToken: tokens.accessToken };
  if (tokens.refreshToken) out.refreshToken = tokens.refreshToken;
  if (tokens.expiresAt) out.expiresAt = tokens.expiresAt;
  if (tokens.scope) out.scope = tokens.scope;
  return out;
}

async function fromRow(data: OrgData, row: DevicePlatformLinkRow): Promise<PlatformLink> {
  const t = await decryptCredentials(data.env, aad(data.orgId, row.deviceId), row.tokensEnc);
  const tokens: PlatformTokens = { accessToken: t.accessToken ?? "", ...(t.refreshToken ? { refreshToken: t.refreshToken } : {}), ...(t.expiresAt ? { expiresAt: t.expiresAt } : {}), ...(t.scope ? { scope: t.scope } : {}) };
  return {
    deviceId: row.deviceId,
    kind: row.kind,
    patientId: row.patientId,
    platformUserId: row.platformUserId,
    tokens,
    version: row.version,
    status: row.status === "inactive" ? "inactive" : "active",
    ...(row.statusReason ? { statusReason: row.statusReason } : {}),
  };
}

export async function getLink(data: OrgData, deviceId: string): Promise<PlatformLink | undefined> {
  const row = await data.db.select().from(devicePlatformLinks).where(and(eq(devicePlatformLinks.orgId, data.orgId), eq(devicePlatformLinks.deviceId, deviceId))).get();
  return row ? fromRow(data, row) : undefined;
}

/** The org's links of `kind` for the vendor user (one user may be linked to more than one device). */
export async function linksOfUser(data: OrgData, kind: string, platformUserId: string): Promise<PlatformLink[]> {
  const rows = await data.db
    .select()
    .from(devicePlatformLinks)
    .where(and(eq(devicePlatformLinks.orgId, data.orgId), eq(devicePlatformLinks.kind, kind), eq(devicePlatformLinks.platformUserId, platformUserId)))
    .all();
  return Promise.all(rows.map((r) => fromRow(data, r)));
}

/** Creates or replaces the link after a completed authorization (a re-link starts a new token lineage). */
export async function saveLink(data: OrgData, link: Omit<PlatformLink, "version" | "status" | "statusReason">): Promise<void> {
  const now = new Date().toISOString();
  const tokensEnc = await encryptCredentials(data.env, aad(data.orgId, link.deviceId), tokensJson(link.tokens));
  const values = {
    kind: link.kind,
    patientId: link.patientId,
    platformUserId: link.platformUserId,
    tokensEnc,
    expiresAt: link.tokens.expiresAt ?? null,
    status: "active",
    statusReason: null,
    updatedAt: now,
  };
  const existing = await getLink(data, link.deviceId);
  await data.db
    .insert(devicePlatformLinks)
    .values({ orgId: data.orgId, deviceId: link.deviceId, ...values, version: 1, createdAt: now })
    .onConflictDoUpdate({ target: [devicePlatformLinks.orgId, devicePlatformLinks.deviceId], set: { ...values, version: (existing?.version ?? 0) + 1 } });
}

/**
 * Replaces the tokens only if nobody did since `expectedVersion` was read: false means another
 * refresh won, and the caller must read the link again instead of overwriting the newer pair.
 */
export async function swapTokens(data: OrgData, deviceId: string, expectedVersion: number, tokens: PlatformTokens): Promise<boolean> {
  const tokensEnc = await encryptCredentials(data.env, aad(data.orgId, deviceId), tokensJson(tokens));
  const result = await data.db
    .update(devicePlatformLinks)
    .set({ tokensEnc, expiresAt: tokens.expiresAt ?? null, version: expectedVersion + 1, refreshLeaseUntil: null, updatedAt: new Date().toISOString() })
    .where(and(eq(devicePlatformLinks.orgId, data.orgId), eq(devicePlatformLinks.deviceId, deviceId), eq(devicePlatformLinks.version, expectedVersion)))
    .run();
  return (result.meta.changes ?? 0) === 1;
}

export async function setLinkStatus(data: OrgData, deviceId: string, status: "active" | "inactive", reason?: string): Promise<void> {
  await data.db
    .update(devicePlatformLinks)
    .set({ status, statusReason: reason ?? null, updatedAt: new Date().toISOString() })
    .where(and(eq(devicePlatformLinks.orgId, data.orgId), eq(devicePlatformLinks.deviceId, deviceId)))
    .run();
}

export async function deleteLink(data: OrgData, deviceId: string): Promise<void> {
  await data.db.delete(devicePlatformLinks).where(and(eq(devicePlatformLinks.orgId, data.orgId), eq(devicePlatformLinks.deviceId, deviceId))).run();
}

/**
 * Takes the refresh lease for `version` (one refresh at a time per link, across isolates):
 * false when another caller holds it or already moved the link past `version`.
 */
export async function takeRefreshLease(data: OrgData, deviceId: string, version: number, leaseMs: number): Promise<boolean> {
  const now = new Date();
  const result = await data.db
    .update(devicePlatformLinks)
    .set({ refreshLeaseUntil: new Date(now.getTime() + leaseMs).toISOString() })
    .where(
      and(
        eq(devicePlatformLinks.orgId, data.orgId),
        eq(devicePlatformLinks.deviceId, deviceId),
        eq(devicePlatformLinks.version, version),
        or(isNull(devicePlatformLinks.refreshLeaseUntil), lt(devicePlatformLinks.refreshLeaseUntil, now.toISOString())),
      ),
    )
    .run();
  return (result.meta.changes ?? 0) === 1;
}

export async function releaseRefreshLease(data: OrgData, deviceId: string): Promise<void> {
  await data.db
    .update(devicePlatformLinks)
    .set({ refreshLeaseUntil: null })
    .where(and(eq(devicePlatformLinks.orgId, data.orgId), eq(devicePlatformLinks.deviceId, deviceId)))
    .run();
}

/** The org's links without their tokens (for the management list). */
export async function listLinks(data: OrgData, limit: number, offset: number): Promise<{ rows: Omit<DevicePlatformLinkRow, "tokensEnc" | "refreshLeaseUntil">[]; total: number }> {
  const where = eq(devicePlatformLinks.orgId, data.orgId);
  const { tokensEnc: _t, refreshLeaseUntil: _l, ...columns } = getTableColumns(devicePlatformLinks);
  const [rows, totals] = await Promise.all([
    data.db.select(columns).from(devicePlatformLinks).where(where).orderBy(desc(devicePlatformLinks.createdAt), devicePlatformLinks.deviceId).limit(limit).offset(offset).all(),
    data.db.select({ n: count() }).from(devicePlatformLinks).where(where).get(),
  ]);
  return { rows, total: totals?.n ?? 0 };
}
