// Device integrations (admin only): the org's credentials per platform kind, sealed at rest,
// masked in every answer; status Active once saved (spec 3.4). One integration per platform.
import type { OrgContext } from "../../../platform/org-context";
import { badRequest, conflict, notFound } from "../../../platform/errors";
import { type DevicePlatforms, PLATFORM_KINDS } from "../platforms/registry";
import { checkResolutionSettings } from "../resolutions";
import { deleteIntegration, findIntegration, findIntegrationByPlatform, type IntegrationInput, insertIntegration, listIntegrations, updateIntegration } from "../store/integrations";
import type { DeviceIntegrationRow } from "../tables";

const missing = (id: string) => notFound(`Device integration ${id} not found`, "DEVICE_INTEGRATION_NOT_FOUND");

function checkPlatform(platforms: DevicePlatforms, platform: string): void {
  if (!platforms.isKind(platform)) throw badRequest("Unknown platform", [{ path: "platform", message: `allowed: ${PLATFORM_KINDS.join(", ")}` }]);
}

export async function createIntegration(ctx: OrgContext, input: IntegrationInput): Promise<DeviceIntegrationRow> {
  checkPlatform(ctx.devicePlatforms, input.platform);
  checkResolutionSettings(ctx.devicePlatforms.of(input.platform), input.settings);
  if (!input.credentials || !Object.keys(input.credentials).length) throw badRequest("Credentials are required", [{ path: "credentials", message: "is required" }]);
  if (await findIntegrationByPlatform(ctx, input.platform)) throw conflict(`An integration for ${input.platform} exists`, "DEVICE_INTEGRATION_EXISTS");
  return insertIntegration(ctx, { ...input, credentials: input.credentials });
}

export const listDeviceIntegrations = (ctx: OrgContext, limit: number, offset: number) => listIntegrations(ctx, limit, offset);

export async function getIntegration(ctx: OrgContext, id: string): Promise<DeviceIntegrationRow> {
  const row = await findIntegration(ctx, id);
  if (!row) throw missing(id);
  return row;
}

/** The platform cannot change (links and syncs depend on it); omitted credentials keep the stored ones. */
export async function changeIntegration(ctx: OrgContext, id: string, input: IntegrationInput): Promise<DeviceIntegrationRow> {
  const current = await getIntegration(ctx, id);
  if (input.platform !== current.platform) throw badRequest("The platform cannot change", [{ path: "platform", message: `is ${current.platform}` }]);
  checkResolutionSettings(ctx.devicePlatforms.of(input.platform), input.settings);
  const row = await updateIntegration(ctx, id, input);
  if (!row) throw missing(id);
  return row;
}

export async function removeIntegration(ctx: OrgContext, id: string): Promise<void> {
  if (!(await deleteIntegration(ctx, id))) throw missing(id);
}
