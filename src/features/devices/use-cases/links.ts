// Patient devices: linking creates the FHIR Device (identifier = platform + the platform's
// device id, patient, name, maker, model, serial) and the link row syncs and ingest read;
// unlinking marks both inactive (readings keep their Device reference and name).
import type { OrgContext } from "../../../platform/org-context";
import type { OrgData } from "../../../platform/org-data";
import { badRequest, conflict, notFound } from "../../../platform/errors";
import type { Resource } from "../../fhir";
import type { Principal } from "../../tenancy";
import type { PlatformTokens } from "../platform-adapter";
import { findIntegration } from "../store/integrations";
import { findLink, insertLink, listPatientLinks, sealTokens, updateLink } from "../store/links";
import type { DeviceLinkRow } from "../tables";

export const DEVICE_IDENTIFIER_SYSTEM = "urn:cdis:device";

export interface LinkInput {
  name: string;
  platform: string;
  integrationId?: string;
  platformDeviceId?: string;
  platformUserId?: string;
  manufacturer?: string;
  model?: string;
  serialNumber?: string;
  tokens?: PlatformTokens;
}

export const deviceNotFound = (id: string) => notFound(`Device ${id} not found`, "DEVICE_NOT_FOUND");

/** The patient must be this org's (another org's is 404, as the FHIR store answers). */
export async function requirePatient(ctx: OrgContext, principal: Principal, patientId: string): Promise<void> {
  await ctx.fhir(principal).read("Patient", patientId);
}

function deviceResource(patientId: string, input: LinkInput): Resource {
  return {
    resourceType: "Device",
    status: "active",
    ...(input.platformDeviceId ? { identifier: [{ system: `${DEVICE_IDENTIFIER_SYSTEM}:${input.platform}`, value: input.platformDeviceId }] } : {}),
    deviceName: [{ name: input.name, type: "user-friendly-name" }],
    ...(input.manufacturer ? { manufacturer: input.manufacturer } : {}),
    ...(input.model ? { modelNumber: input.model } : {}),
    ...(input.serialNumber ? { serialNumber: input.serialNumber } : {}),
    patient: { reference: `Patient/${patientId}` },
  };
}

export async function linkDevice(ctx: OrgContext, principal: Principal, patientId: string, input: LinkInput): Promise<DeviceLinkRow> {
  await requirePatient(ctx, principal, patientId);
  if (input.integrationId) {
    const integration = await findIntegration(ctx, input.integrationId);
    if (!integration) throw badRequest("Unknown device integration", [{ path: "integration_id", message: `no integration ${input.integrationId} in this organization` }]);
    if (integration.platform !== input.platform) throw badRequest("Platform mismatch", [{ path: "platform", message: `integration ${integration.id} is for ${integration.platform}` }]);
  }
  const fhir = ctx.fhir(principal);
  if (input.platformDeviceId) {
    const query = `identifier=${encodeURIComponent(`${DEVICE_IDENTIFIER_SYSTEM}:${input.platform}|${input.platformDeviceId}`)}&status=active`;
    const existing = await fhir.search("Device", query);
    if (existing.entry?.length) throw conflict(`Device ${input.platformDeviceId} of ${input.platform} is already linked`, "DEVICE_ALREADY_LINKED");
  }
  const { resource } = await fhir.create(deviceResource(patientId, input));
  const deviceId = resource.id as string;
  const row: DeviceLinkRow = {
    orgId: ctx.orgId,
    deviceId,
    patientId,
    name: input.name,
    platform: input.platform,
    integrationId: input.integrationId ?? null,
    platformDeviceId: input.platformDeviceId ?? null,
    platformUserId: input.platformUserId ?? null,
    tokensEnc: await sealTokens(ctx, deviceId, input.tokens),
    status: "active",
    lastSyncAt: null,
    createdAt: new Date().toISOString(),
  };
  await insertLink(ctx, row);
  return row;
}

export async function listPatientDevices(ctx: OrgContext, principal: Principal, patientId: string, limit: number, offset: number) {
  await requirePatient(ctx, principal, patientId);
  return listPatientLinks(ctx, patientId, limit, offset);
}

/** An active link of this org (a device of another org is 404). */
export async function activeLink(ctx: OrgData, deviceId: string, patientId?: string): Promise<DeviceLinkRow> {
  const link = await findLink(ctx, deviceId);
  if (link?.status !== "active" || (patientId !== undefined && link.patientId !== patientId)) throw deviceNotFound(deviceId);
  return link;
}

export async function unlinkDevice(ctx: OrgContext, principal: Principal, patientId: string, deviceId: string): Promise<void> {
  await activeLink(ctx, deviceId, patientId);
  const fhir = ctx.fhir(principal);
  const device = await fhir.read("Device", deviceId);
  await fhir.update({ ...device, id: deviceId, status: "inactive" });
  await updateLink(ctx, deviceId, { status: "inactive", tokensEnc: null });
}
