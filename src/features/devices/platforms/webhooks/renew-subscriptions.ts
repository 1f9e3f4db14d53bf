// The hourly renewal of vendor webhook subscriptions for one organization: every platform that
// has expiring subscriptions (Oura) and is configured for the org is asked to renew those near
// expiry, through the outbound guard; what was renewed or failed is logged.
import type { OrgContext } from "../../../../platform/org-context";
import { logger } from "../../../../platform/observability/log";
import type { DevicePlatforms } from "../registry";

/** The platform kinds whose subscriptions expire (the cron looks only at orgs with one of these). */
export const renewingKinds = (platforms: DevicePlatforms): string[] => platforms.all.filter((p) => p.renewSubscriptions).map((p) => p.kind);

export async function renewSubscriptions(data: OrgContext, now: Date): Promise<{ kind: string; renewed: number; failed: number }[]> {
  const services = data.platformServices;
  const out: { kind: string; renewed: number; failed: number }[] = [];
  for (const platform of data.devicePlatforms.all) {
    if (!platform.renewSubscriptions) continue;
    const credentials = await services.credentialsFor(data, platform.kind);
    if (!credentials) continue;
    try {
      const result = await platform.renewSubscriptions({ credentials, fetch: services.fetch(data.env) }, now);
      logger(data.env).info("webhook subscriptions renewed", { org: data.orgId, platform: platform.kind, checked: result.checked, renewed: result.renewed.length, failed: result.failed.length });
      out.push({ kind: platform.kind, renewed: result.renewed.length, failed: result.failed.length });
    } catch (err) {
      logger(data.env).warn("webhook subscription renewal failed", { org: data.orgId, platform: platform.kind, error: err instanceof Error ? err.message : String(err) });
      out.push({ kind: platform.kind, renewed: 0, failed: 1 });
    }
  }
  return out;
}
