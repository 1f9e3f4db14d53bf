// Backfill for push platforms (Garmin): one request per data type and window; the vendor
// answers 202 and pushes the data later through the webhook, or 409 for a window already asked.
import { ApiError, badRequest, notFound } from "../../../../platform/errors";
import type { OrgContext } from "../../../../platform/org-context";
import { getLink } from "./link-store";
import { withFreshTokens } from "./tokens";

export interface BackfillInput {
  readonly dataTypes?: readonly string[];
  readonly from: string;
  readonly to: string;
}

export async function backfillLink(data: OrgContext, deviceId: string, input: BackfillInput) {
  const link = await getLink(data, deviceId);
  if (!link) throw notFound(`No platform link for device ${deviceId}`, "LINK_NOT_FOUND");
  if (link.status !== "active") throw new ApiError(409, "LINK_INACTIVE", `The device link is inactive (${link.statusReason ?? "no reason recorded"})`);
  const platform = data.devicePlatforms.of(link.kind);
  if (!platform?.backfill) throw new ApiError(409, "BACKFILL_NOT_SUPPORTED", `The ${link.kind} platform delivers history through sync, not backfill`);
  const types = input.dataTypes?.length ? input.dataTypes : platform.dataTypes;
  const unknown = types.filter((t) => !platform.dataTypes.includes(t));
  if (unknown.length) throw badRequest(`Unknown data types for ${link.kind}: ${unknown.join(", ")} (known: ${platform.dataTypes.join(", ")})`);
  const from = Date.parse(input.from);
  const to = Date.parse(input.to);
  if (!(from < to)) throw badRequest("`from` must be before `to`");
  if (to - from > platform.maxSyncDays * 86_400_000) throw badRequest(`The window may span at most ${platform.maxSyncDays} days`);
  const services = data.platformServices;
  const credentials = await services.credentialsFor(data, link.kind);
  if (!credentials) throw notFound(`The ${link.kind} platform is not configured for this organization`, "PLATFORM_NOT_CONFIGURED");
  const c = { data, platform, credentials, fetch: services.fetch(data.env) };
  const requested: string[] = [];
  const alreadyRequested: string[] = [];
  for (const type of types) {
    const result = await withFreshTokens(c, link, (call) => platform.backfill!(call, type, input.from, input.to));
    (result === "accepted" ? requested : alreadyRequested).push(type);
  }
  return { requested, alreadyRequested };
}
