// Patient device links: one row per FHIR Device the service reads from, with the device's
// platform tokens sealed (AES-GCM, bound to the row). Unlinking marks the row inactive so old
// readings keep their device's name.
import { and, count, desc, eq, inArray } from "drizzle-orm";
import type { OrgData } from "../../../platform/org-data";
import { decryptCredentials, encryptCredentials } from "../../connectors";
import type { PlatformTokens } from "../platform-adapter";
import { type DeviceLinkRow, deviceLinks } from "../tables";

const aad = (orgId: string, deviceId: string) => `device-link:${orgId}:${deviceId}`;

export async function sealTokens(data: OrgData, deviceId: string, tokens: PlatformTokens | undefined): Promise<string | null> {
  return tokens ? encryptCredentials(data.env, aad(data.orgId, deviceId), { tokens: JSON.stringify(tokens) }) : null;
}

export async function unsealTokens(data: OrgData, row: DeviceLinkRow): Promise<PlatformTokens | undefined> {
  if (!row.tokensEnc) return undefined;
  const { tokens } = await decryptCredentials(data.env, aad(data.orgId, row.deviceId), row.tokensEnc);
  return tokens ? (JSON.parse(tokens) as PlatformTokens) : undefined;
}

export async function insertLink(data: OrgData, row: DeviceLinkRow): Promise<void> {
  await data.db.insert(deviceLinks).values(row);
}

export async function findLink(data: OrgData, deviceId: string): Promise<DeviceLinkRow | undefined> {
  const [row] = await data.db.select().from(deviceLinks).where(and(eq(deviceLinks.orgId, data.orgId), eq(deviceLinks.deviceId, deviceId)));
  return row;
}

export async function findLinks(data: OrgData, deviceIds: readonly string[]): Promise<DeviceLinkRow[]> {
  if (!deviceIds.length) return [];
  return data.db.select().from(deviceLinks).where(and(eq(deviceLinks.orgId, data.orgId), inArray(deviceLinks.deviceId, [...deviceIds])));
}

export async function listPatientLinks(data: OrgData, patientId: string, limit: number, offset: number): Promise<{ rows: DeviceLinkRow[]; total: number }> {
  const where = and(eq(deviceLinks.orgId, data.orgId), eq(deviceLinks.patientId, patientId), eq(deviceLinks.status, "active"));
  const [rows, totals] = await Promise.all([
    data.db.select().from(deviceLinks).where(where).orderBy(desc(deviceLinks.createdAt)).limit(limit).offset(offset),
    data.db.select({ n: count() }).from(deviceLinks).where(where),
  ]);
  return { rows, total: totals[0]?.n ?? 0 };
}

/** The platform of every device ever linked to the patient (unlinked ones too: their readings stay). */
export async function patientDevicePlatforms(data: OrgData, patientId: string): Promise<Map<string, string>> {
  const rows = await data.db
    .select({ deviceId: deviceLinks.deviceId, platform: deviceLinks.platform })
    .from(deviceLinks)
    .where(and(eq(deviceLinks.orgId, data.orgId), eq(deviceLinks.patientId, patientId)));
  return new Map(rows.map((r) => [r.deviceId, r.platform]));
}

export async function updateLink(data: OrgData, deviceId: string, patch: Partial<Pick<DeviceLinkRow, "status" | "lastSyncAt" | "tokensEnc">>): Promise<void> {
  await data.db.update(deviceLinks).set(patch).where(and(eq(deviceLinks.orgId, data.orgId), eq(deviceLinks.deviceId, deviceId)));
}
