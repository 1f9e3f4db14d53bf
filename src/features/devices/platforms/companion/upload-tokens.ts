// Upload tokens for companion apps (Apple Health, Health Connect), which have no vendor cloud
// to sign anything: an administrator or clinician issues one for a patient's device link, the
// app sends it as a bearer token, and only its SHA-256 is stored, so a leaked table row uploads
// nothing. Revoking is immediate; unlinking the device stops every token of it.
import { and, count, desc, eq, isNull } from "drizzle-orm";
import { ApiError, badRequest, notFound } from "../../../../platform/errors";
import type { OrgContext } from "../../../../platform/org-context";
import { sha256Hex } from "../webhooks/signature";
import type { DeviceLinkView } from "../services";
import { type DeviceUploadTokenRow, deviceUploadTokens } from "./tables";

/** The platform kinds that upload through a companion app rather than a vendor cloud. */
export const COMPANION_KINDS = ["ios_health_app", "android_health_app"] as const;
export type CompanionKind = (typeof COMPANION_KINDS)[number];

const TOKEN_PREFIX = "cdt_";

const newToken = () => `${TOKEN_PREFIX}${btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(32)))).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "")}`;

const companionDevice = async (data: OrgContext, deviceId: string): Promise<DeviceLinkView & { platform: CompanionKind }> => {
  const device = await data.platformServices.device(data, deviceId);
  if (!device) throw notFound(`Device ${deviceId} not found`, "DEVICE_NOT_FOUND");
  if (!(COMPANION_KINDS as readonly string[]).includes(device.platform)) {
    throw badRequest("Upload tokens are for companion-app devices", [{ path: "deviceId", message: `device ${deviceId} is a ${device.platform} device; upload tokens are for ${COMPANION_KINDS.join(" and ")}` }]);
  }
  if (device.status !== "active") throw badRequest(`Device ${deviceId} is not linked (status ${device.status})`);
  return device as DeviceLinkView & { platform: CompanionKind };
};

export async function issueUploadToken(data: OrgContext, deviceId: string, createdBy: string, label?: string): Promise<{ row: DeviceUploadTokenRow; token: string }> {
  await companionDevice(data, deviceId);
  const token = newToken();
  const row: DeviceUploadTokenRow = { orgId: data.orgId, id: crypto.randomUUID(), deviceId, tokenHash: await sha256Hex(token), label: label ?? null, createdBy, createdAt: new Date().toISOString(), lastUsedAt: null, revokedAt: null };
  await data.db.insert(deviceUploadTokens).values(row);
  return { row, token };
}

export async function listUploadTokens(data: OrgContext, deviceId: string, limit: number, offset: number): Promise<{ rows: DeviceUploadTokenRow[]; total: number }> {
  await companionDevice(data, deviceId);
  const where = and(eq(deviceUploadTokens.orgId, data.orgId), eq(deviceUploadTokens.deviceId, deviceId));
  const [rows, totals] = await Promise.all([
    data.db.select().from(deviceUploadTokens).where(where).orderBy(desc(deviceUploadTokens.createdAt)).limit(limit).offset(offset),
    data.db.select({ n: count() }).from(deviceUploadTokens).where(where),
  ]);
  return { rows, total: totals[0]?.n ?? 0 };
}

export async function revokeUploadToken(data: OrgContext, deviceId: string, tokenId: string): Promise<void> {
  const revoked = await data.db
    .update(deviceUploadTokens)
    .set({ revokedAt: new Date().toISOString() })
    .where(and(eq(deviceUploadTokens.orgId, data.orgId), eq(deviceUploadTokens.deviceId, deviceId), eq(deviceUploadTokens.id, tokenId), isNull(deviceUploadTokens.revokedAt)))
    .returning({ id: deviceUploadTokens.id });
  if (!revoked.length) throw notFound(`Upload token ${tokenId} not found (or already revoked)`, "UPLOAD_TOKEN_NOT_FOUND");
}

/** Every refused upload token answers alike, also for an organization that does not exist (so ids cannot be probed). */
export const uploadTokenRefused = () => new ApiError(401, "UPLOAD_TOKEN_INVALID", "Missing, unknown or revoked upload token");
const refused = uploadTokenRefused;

/** The device an upload's bearer token names, if the token is live, the link active and of `kind`. */
export async function authenticateUpload(data: OrgContext, authorization: string | undefined, kind: CompanionKind): Promise<DeviceLinkView> {
  const token = /^Bearer\s+(\S+)$/i.exec(authorization ?? "")?.[1];
  if (!token?.startsWith(TOKEN_PREFIX)) throw refused();
  const [row] = await data.db
    .select()
    .from(deviceUploadTokens)
    .where(and(eq(deviceUploadTokens.orgId, data.orgId), eq(deviceUploadTokens.tokenHash, await sha256Hex(token)), isNull(deviceUploadTokens.revokedAt)));
  if (!row) throw refused();
  const device = await data.platformServices.device(data, row.deviceId);
  if (device?.status !== "active") throw refused();
  if (device.platform !== kind) throw new ApiError(403, "FORBIDDEN", `This token uploads for a ${device.platform} device, not ${kind}`);
  await data.db.update(deviceUploadTokens).set({ lastUsedAt: new Date().toISOString() }).where(and(eq(deviceUploadTokens.orgId, data.orgId), eq(deviceUploadTokens.id, row.id)));
  return device;
}
