// Linking a patient's device: an authorization URL whose `state` is random, single use, bound
// to the org, the patient, the device and a 10-minute expiry (stored on the org's shard, so a
// state from one org cannot complete at another org's callback), PKCE where the vendor has
// it; the callback exchanges the code, stores the tokens sealed, learns the vendor's user id
// and marks the device Active. Unlinking revokes at the vendor and forgets the tokens.
import { and, eq, lt } from "drizzle-orm";
import { PlatformError } from "../../platform-adapter";
import { decryptCredentials, encryptCredentials } from "../../../connectors";
import { ApiError, badRequest, notFound } from "../../../../platform/errors";
import type { OrgContext } from "../../../../platform/org-context";
import type { DevicePlatform } from "../platform";
import { authorizationUrl, exchangeCode, newState, newVerifier, revokeToken } from "./client";
import { deleteLink, getLink, saveLink } from "./link-store";
import { deviceOAuthStates } from "./tables";

export const STATE_TTL_MS = 10 * 60_000;

const stateAad = (orgId: string, state: string) => `device-oauth-state:${orgId}:${state}`;

async function oauthPlatform(ctx: OrgContext, kind: string) {
  const platform = ctx.devicePlatforms.of(kind);
  if (!platform?.oauth) throw notFound(`No OAuth platform of kind ${kind}`, "PLATFORM_NOT_FOUND");
  const credentials = await ctx.platformServices.credentialsFor(ctx, kind);
  if (!credentials) throw notFound(`The ${kind} platform is not configured for this organization`, "PLATFORM_NOT_CONFIGURED");
  return { platform, spec: platform.oauth, credentials };
}

export async function startAuthorization(data: OrgContext, kind: string, input: { patientId: string; deviceId: string }, redirectUri: string, now = new Date()) {
  const { spec, credentials } = await oauthPlatform(data, kind);
  const state = newState();
  const verifier = spec.pkce ? newVerifier() : "";
  const expiresAt = new Date(now.getTime() + STATE_TTL_MS).toISOString();
  // Expired states of this org go as new ones come: the table holds only pending authorizations.
  await data.db.delete(deviceOAuthStates).where(and(eq(deviceOAuthStates.orgId, data.orgId), lt(deviceOAuthStates.expiresAt, now.toISOString()))).run();
  await data.db
    .insert(deviceOAuthStates)
    .values({ orgId: data.orgId, state, kind, patientId: input.patientId, deviceId: input.deviceId, verifierEnc: await encryptCredentials(data.env, stateAad(data.orgId, state), { verifier }), redirectUri, expiresAt })
    .run();
  return { authorizationUrl: await authorizationUrl(spec, credentials, { state, redirectUri, verifier }), state, expiresAt };
}

const platformFailure = (e: PlatformError) =>
  e.kind === "revoked"
    ? new ApiError(400, "AUTHORIZATION_CODE_REJECTED", `The platform refused the authorization code: ${e.message}`)
    : new ApiError(502, "PLATFORM_ERROR", `The platform failed during linking: ${e.message}`);

/** The callback: `query` is the redirect's query string (code, state, or error). */
/** What a callback whose state matches nothing answers (also for an organization that does not exist, so it cannot be probed). */
export function callbackRefusal(query: URLSearchParams): ApiError {
  return query.get("state") ? new ApiError(400, "STATE_INVALID", "Unknown or already used authorization state") : badRequest("The callback has no state parameter");
}

export async function completeAuthorization(data: OrgContext, kind: string, query: URLSearchParams, now = new Date()) {
  const state = query.get("state");
  if (!state) throw callbackRefusal(query);
  // Single use: the row is taken away by the first callback that presents it.
  const row = await data.db.delete(deviceOAuthStates).where(and(eq(deviceOAuthStates.orgId, data.orgId), eq(deviceOAuthStates.state, state))).returning().get();
  if (!row || row.kind !== kind) throw callbackRefusal(query);
  if (row.expiresAt < now.toISOString()) throw new ApiError(400, "STATE_EXPIRED", "The authorization link expired; start linking again");
  const denied = query.get("error");
  if (denied) throw new ApiError(400, "AUTHORIZATION_DENIED", `The platform reported: ${denied}${query.get("error_description") ? ` (${query.get("error_description")})` : ""}`);
  if (!query.get("code")) throw badRequest("The callback has no code parameter");

  const { platform, spec, credentials } = await oauthPlatform(data, kind);
  const services = data.platformServices;
  const fetch = services.fetch(data.env);
  const { verifier } = await decryptCredentials(data.env, stateAad(data.orgId, state), row.verifierEnc);
  try {
    const { tokens, raw } = await exchangeCode(spec, credentials, fetch, { callback: query, redirectUri: row.redirectUri, verifier });
    const call = { credentials, tokens, fetch };
    const platformUserId = platform.platformUserId ? await platform.platformUserId(call, raw) : "";
    if (!platformUserId) throw new PlatformError("invalid", "the platform did not say who the user is");
    const device = { deviceId: row.deviceId, patientId: row.patientId, platformUserId };
    await platform.afterLink?.(call, device, data.orgId);
    await saveLink(data, { ...device, kind, tokens });
    await services.linkStatus(data, row.deviceId, "active");
    return device;
  } catch (e) {
    throw e instanceof PlatformError ? platformFailure(e) : e;
  }
}

/** Revokes at the vendor (best effort: the user may already have) and forgets the tokens. */
/**
 * What unlinking did at the vendor: `revoked` (the vendor confirmed: a revocation, a
 * deregistration or a user deletion), `not_supported` (the vendor has no way to: Suunto; the
 * user removes the app in the vendor's own settings), `failed` (the vendor refused or was down),
 * `not_configured` (the platform's integration is gone). The tokens are forgotten in every case.
 */
export type Revocation = "revoked" | "not_supported" | "failed" | "not_configured";

export interface Unlinked {
  readonly revoked: boolean;
  readonly revocation: Revocation;
  readonly detail: string;
}

export async function unlinkDevice(data: OrgContext, deviceId: string): Promise<Unlinked> {
  const link = await getLink(data, deviceId);
  if (!link) throw notFound(`No platform link for device ${deviceId}`, "LINK_NOT_FOUND");
  const platform: DevicePlatform | undefined = data.devicePlatforms.of(link.kind);
  const services = data.platformServices;
  const credentials = await services.credentialsFor(data, link.kind);
  let revocation: Revocation = "not_configured";
  let detail = `The ${link.kind} platform is not configured: nothing was revoked at the vendor; the tokens were forgotten`;
  if (platform && credentials) {
    const fetch = services.fetch(data.env);
    const call = { credentials, tokens: link.tokens, fetch };
    try {
      await platform.beforeUnlink?.(call, { deviceId, patientId: link.patientId, platformUserId: link.platformUserId }, data.orgId);
      const revokedToken = platform.oauth ? await revokeToken(platform.oauth, credentials, fetch, link.tokens.refreshToken ?? link.tokens.accessToken) : false;
      const confirmed = Boolean(platform.beforeUnlink) || revokedToken;
      revocation = confirmed ? "revoked" : "not_supported";
      detail = confirmed
        ? `${platform.vendor} confirmed the revocation; the tokens were forgotten`
        : `${platform.vendor} offers no revocation: the tokens were forgotten here, and access ends when the user removes the app in ${platform.vendor}'s settings`;
    } catch (e) {
      if (!(e instanceof PlatformError)) throw e;
      revocation = "failed";
      detail = `${platform.vendor} did not confirm the revocation (${e.message}); the tokens were forgotten`;
    }
  }
  await deleteLink(data, deviceId);
  await services.linkStatus(data, deviceId, "inactive", "unlinked");
  return { revoked: revocation === "revoked", revocation, detail };
}
