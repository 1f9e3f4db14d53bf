// Access tokens that are fresh when a vendor call needs them: refreshed shortly before expiry
// and once on a 401, with one refresh per link at a time (a lease on the shard row), so two
// concurrent refreshes never spend the same single-use refresh token and never lose the new pair.
import { type PlatformCall, type PlatformCredentials, PlatformError } from "../../platform-adapter";
import type { OrgData } from "../../../../platform/org-data";
import type { DevicePlatform } from "../platform";
import { refreshTokens } from "./client";
import { type PlatformLink, getLink, releaseRefreshLease, swapTokens, takeRefreshLease } from "./link-store";

/** Refresh this long before the access token expires. */
export const REFRESH_MARGIN_MS = 5 * 60_000;
const LEASE_MS = 30_000;
const WAIT_STEP_MS = 100;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function expiresSoon(link: PlatformLink, now: number): boolean {
  const at = link.tokens.expiresAt ? Date.parse(link.tokens.expiresAt) : Number.POSITIVE_INFINITY;
  return at - now <= REFRESH_MARGIN_MS;
}

/** Waits for the lease holder's new pair (the version moves on), then returns it. */
async function awaitOtherRefresh(data: OrgData, link: PlatformLink): Promise<PlatformLink> {
  for (let waited = 0; waited <= LEASE_MS; waited += WAIT_STEP_MS) {
    const now = await getLink(data, link.deviceId);
    if (!now) throw new PlatformError("revoked", "the device link was removed");
    if (now.version !== link.version) return now;
    await sleep(WAIT_STEP_MS);
  }
  throw new PlatformError("unavailable", "another token refresh did not finish in time");
}

/** The link with tokens valid for a call: refreshed if they expire soon, or always with `force` (after a 401). */
export async function freshLink(data: OrgData, platform: DevicePlatform, credentials: PlatformCredentials, fetch: typeof globalThis.fetch, link: PlatformLink, force = false): Promise<PlatformLink> {
  if (!force && !expiresSoon(link, Date.now())) return link;
  if (!platform.oauth || !link.tokens.refreshToken) {
    if (force) throw new PlatformError("unauthorized", "the access token was refused and the platform gives no refresh token");
    return link;
  }
  if (!(await takeRefreshLease(data, link.deviceId, link.version, LEASE_MS))) return awaitOtherRefresh(data, link);
  try {
    const { tokens } = await refreshTokens(platform.oauth, credentials, fetch, link.tokens.refreshToken);
    if (!(await swapTokens(data, link.deviceId, link.version, tokens))) return awaitOtherRefresh(data, link);
    return { ...link, tokens, version: link.version + 1 };
  } catch (e) {
    await releaseRefreshLease(data, link.deviceId);
    throw e;
  }
}

export interface LinkCall {
  readonly data: OrgData;
  readonly platform: DevicePlatform;
  readonly credentials: PlatformCredentials;
  readonly fetch: typeof globalThis.fetch;
}

/** Runs `work` with fresh tokens; on a 401 refreshes once and retries; a second 401 is the caller's to report. */
export async function withFreshTokens<T>(c: LinkCall, link: PlatformLink, work: (call: PlatformCall, link: PlatformLink) => Promise<T>): Promise<T> {
  let current = await freshLink(c.data, c.platform, c.credentials, c.fetch, link);
  const callOf = (l: PlatformLink): PlatformCall => ({ credentials: c.credentials, tokens: l.tokens, fetch: c.fetch });
  try {
    return await work(callOf(current), current);
  } catch (e) {
    if (!(e instanceof PlatformError && e.kind === "unauthorized") || !current.tokens.refreshToken) throw e;
    current = await freshLink(c.data, c.platform, c.credentials, c.fetch, current, true);
    return work(callOf(current), current);
  }
}
