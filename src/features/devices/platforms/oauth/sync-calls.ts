// Manual syncs of OAuth-linked devices: the device core's DeviceSync asks through its port
// (`DeviceSync.linkedCall`, bound in src/main/entry.ts) and gets the call made with this link's tokens, fresh
// (refreshed before expiry and once on a 401, under the link's refresh lease). A link the user
// revoked, or whose refresh is refused, goes inactive and the sync reports it as revoked.
import { type PlatformCall, PlatformError } from "../../platform-adapter";
import type { OrgContext } from "../../../../platform/org-context";
import { getLink, setLinkStatus } from "./link-store";
import { withFreshTokens } from "./tokens";

export async function callWithLinkTokens<T>(data: OrgContext, deviceId: string, work: (call: PlatformCall) => Promise<T>): Promise<{ handled: true; value: T } | { handled: false }> {
  const link = await getLink(data, deviceId);
  const platform = link && data.devicePlatforms.of(link.kind);
  if (!link || !platform) return { handled: false };
  if (link.status !== "active") throw new PlatformError("revoked", `the ${link.kind} link is inactive${link.statusReason ? `: ${link.statusReason}` : ""}`);
  const services = data.platformServices;
  const credentials = await services.credentialsFor(data, link.kind);
  if (!credentials) throw new PlatformError("revoked", `the ${link.kind} platform is not configured for this organization`);
  try {
    return { handled: true, value: await withFreshTokens({ data, platform, credentials, fetch: services.fetch(data.env) }, link, (call) => work(call)) };
  } catch (e) {
    if (e instanceof PlatformError && (e.kind === "revoked" || e.kind === "unauthorized")) {
      await setLinkStatus(data, deviceId, "inactive", `${e.kind}: ${e.message}`);
      await services.linkStatus(data, deviceId, "inactive", e.kind);
    }
    throw e;
  }
}
