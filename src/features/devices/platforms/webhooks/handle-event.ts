// One vendor event for one linked device → readings: the call the queue consumer makes per
// link. Tokens are refreshed as needed; a revoked grant or a deregistration ends the link.
import { PlatformError } from "../../platform-adapter";
import type { EventOutcome, PlatformEvent } from "../platform";
import type { PlatformLink } from "../oauth/link-store";
import { type LinkCall, withFreshTokens } from "../oauth/tokens";

export async function handlePlatformEvent(c: LinkCall, link: PlatformLink, event: PlatformEvent): Promise<EventOutcome> {
  if (event.action === "deregister") return { readings: [], deletedRecordIds: [], linkInactive: "deregistered by the user on the platform" };
  const device = { deviceId: link.deviceId, patientId: link.patientId, platformUserId: link.platformUserId };
  try {
    return await withFreshTokens(c, link, (call) => c.platform.handleEvent(call, device, event));
  } catch (e) {
    if (e instanceof PlatformError && (e.kind === "revoked" || e.kind === "unauthorized")) return { readings: [], deletedRecordIds: [], linkInactive: `${e.kind}: ${e.message}` };
    throw e;
  }
}
