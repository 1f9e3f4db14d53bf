// Device integrations: an organization's credentials for one platform, sealed like connector
// credentials (AES-GCM with CONNECTOR_ENCRYPTION_KEY, bound to the row) and never returned.
import { and, count, desc, eq, inArray } from "drizzle-orm";
import type { Database } from "../../../platform/db/client";
import type { OrgData } from "../../../platform/org-data";
import { decryptCredentials, encryptCredentials, maskCredentials } from "../../connectors";
import { type DeviceIntegrationRow, deviceIntegrations } from "../tables";

const aad = (orgId: string, id: string) => `device-integration:${orgId}:${id}`;
const where = (data: OrgData, id: string) => and(eq(deviceIntegrations.orgId, data.orgId), eq(deviceIntegrations.id, id));

export interface IntegrationInput {
  platform: string;
  name: string;
  settings: Record<string, string>;
  /** Absent on update: keep the stored credentials. */
  credentials?: Record<string, string>;
}

async function sealed(data: OrgData, id: string, credentials: Record<string, string>) {
  return { credentialsEnc: await encryptCredentials(data.env, aad(data.orgId, id), credentials), credentialsMasked: maskCredentials(credentials) };
}

export async function insertIntegration(data: OrgData, input: IntegrationInput & { credentials: Record<string, string> }): Promise<DeviceIntegrationRow> {
  const id = crypto.randomUUID();
  const now = new Date().toISOString();
  const row: DeviceIntegrationRow = { orgId: data.orgId, id, platform: input.platform, name: input.name, status: "Active", settings: input.settings, ...(await sealed(data, id, input.credentials)), createdAt: now, updatedAt: now };
  await data.db.insert(deviceIntegrations).values(row);
  return row;
}

export async function findIntegration(data: OrgData, id: string): Promise<DeviceIntegrationRow | undefined> {
  const [row] = await data.db.select().from(deviceIntegrations).where(where(data, id));
  return row;
}

export async function findIntegrationByPlatform(data: OrgData, platform: string): Promise<DeviceIntegrationRow | undefined> {
  const [row] = await data.db
    .select()
    .from(deviceIntegrations)
    .where(and(eq(deviceIntegrations.orgId, data.orgId), eq(deviceIntegrations.platform, platform)));
  return row;
}

export async function listIntegrations(data: OrgData, limit: number, offset: number): Promise<{ rows: DeviceIntegrationRow[]; total: number }> {
  const byOrg = eq(deviceIntegrations.orgId, data.orgId);
  const [rows, totals] = await Promise.all([
    data.db.select().from(deviceIntegrations).where(byOrg).orderBy(desc(deviceIntegrations.createdAt)).limit(limit).offset(offset),
    data.db.select({ n: count() }).from(deviceIntegrations).where(byOrg),
  ]);
  return { rows, total: totals[0]?.n ?? 0 };
}

export async function updateIntegration(data: OrgData, id: string, input: IntegrationInput): Promise<DeviceIntegrationRow | undefined> {
  const patch = { name: input.name, settings: input.settings, updatedAt: new Date().toISOString(), ...(input.credentials ? await sealed(data, id, input.credentials) : {}) };
  const [row] = await data.db.update(deviceIntegrations).set(patch).where(where(data, id)).returning();
  return row;
}

export async function deleteIntegration(data: OrgData, id: string): Promise<boolean> {
  const rows = await data.db.delete(deviceIntegrations).where(where(data, id)).returning({ id: deviceIntegrations.id });
  return rows.length > 0;
}

export async function integrationCredentials(data: OrgData, row: DeviceIntegrationRow): Promise<Record<string, string>> {
  return row.credentialsEnc ? decryptCredentials(data.env, aad(data.orgId, row.id), row.credentialsEnc) : {};
}

/** The orgs on a shard with an integration of one of `platforms` (the cron's renewal pass). */
export async function orgsWithIntegration(db: Database, platforms: readonly string[]): Promise<string[]> {
  if (!platforms.length) return [];
  const rows = await db.selectDistinct({ orgId: deviceIntegrations.orgId }).from(deviceIntegrations).where(inArray(deviceIntegrations.platform, [...platforms]));
  return rows.map((r) => r.orgId);
}
