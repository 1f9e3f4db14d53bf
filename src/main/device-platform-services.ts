// The wearable platforms' seams to the device core, wired here: an org's client credentials come
// from its device integration for that platform (client_id / client_secret, the rest as vendor
// extras with the non-secret settings), link status is the device link's, and webhook readings
// go through the device core's ingest (Observations, dedup, threshold alerts) as the platform.
import { contextForOrg } from "./context";
import type { Env } from "../platform/env";
import type { PlatformServices } from "../device-platforms/wiring";
import { findIntegrationByPlatform, integrationCredentials, updateIntegration } from "../features/devices/store/integrations";
import { findLink, updateLink } from "../features/devices/store/links";
import { insertSyncLog, updateSyncLog } from "../features/devices/store/sync-logs";
import { ingestReadings } from "../features/devices/use-cases/ingest";
import { vendorFetch } from "../features/devices/vendor-fetch";
import { retractObservationIds, retractSourceRecords } from "../features/devices/use-cases/retract";
import type { Principal } from "../features/tenancy/auth/permissions";
import { logger } from "../platform/observability/log";
import { serviceProfileOf } from "../platform/service-profiles";
import type { ServiceProfile } from "./service-profile";

/** Who stores a platform's webhook readings: the platform itself, as a service. */
const platformPrincipal = (orgId: string, kind: string): Principal => ({ orgId, keyId: `device-platform:${kind}`, keyName: `${kind} webhooks`, role: "service", scopes: [] });

export const devicePlatformServices: PlatformServices = {
  async credentialsFor(data, kind) {
    const row = await findIntegrationByPlatform(data, kind);
    if (!row) return undefined;
    const { client_id: clientId, client_secret: clientSecret, ...secrets } = await integrationCredentials(data, row);
    return { ...(clientId ? { clientId } : {}), ...(clientSecret ? { clientSecret } : {}), extra: { ...row.settings, ...secrets } };
  },
  async keepCredentials(data, kind, credentials) {
    const row = await findIntegrationByPlatform(data, kind);
    if (!row) throw new Error(`no ${kind} integration to keep credentials in`);
    const current = await integrationCredentials(data, row);
    await updateIntegration(data, row.id, { platform: row.platform, name: row.name, settings: row.settings, credentials: { ...current, ...credentials } });
  },
  async linkStatus(data, deviceId, status, reason) {
    await updateLink(data, deviceId, { status });
    logger(data.env).info("device link status", { org: data.orgId, device_id: deviceId, status, reason });
  },
  async ingest(data, kind, readings, deleted, outcomes) {
    const results = readings.length ? await ingestReadings(await contextForOrg(data.env, data.orgId), platformPrincipal(data.orgId, kind), readings, outcomes) : [];
    // A vendor's delete marks the record's Observations entered-in-error (never deleted) and takes them out of the vitals.
    if (deleted.length) {
      const marked = await retractSourceRecords(await contextForOrg(data.env, data.orgId), platformPrincipal(data.orgId, kind), kind, deleted);
      logger(data.env).info("device records deleted at the vendor", { org: data.orgId, platform: kind, records: deleted.length, observations_marked: marked });
    }
    return results;
  },
  // Vendor calls fail with their cause named (DNS, refused, timeout, TLS) and a time limit.
  fetch: (env) => vendorFetch(env),
  async device(data, deviceId) {
    const row = await findLink(data, deviceId);
    return row && { deviceId: row.deviceId, patientId: row.patientId, platform: row.platform, status: row.status };
  },
  async store(data, kind, readings) {
    return readings.length ? ingestReadings(await contextForOrg(data.env, data.orgId), platformPrincipal(data.orgId, kind), readings) : [];
  },
  async retract(data, kind, ids, keep = []) {
    return ids.length ? retractObservationIds(await contextForOrg(data.env, data.orgId), platformPrincipal(data.orgId, kind), ids, new Set(keep)) : 0;
  },
  async openSyncLog(data, entry) {
    const id = crypto.randomUUID();
    await insertSyncLog(data, { orgId: data.orgId, id, deviceId: entry.deviceId, state: "queued", fromDate: entry.from, toDate: entry.to, progress: entry.progress, requestedBy: entry.requestedBy, createdAt: new Date().toISOString(), startedAt: null, finishedAt: null });
    return id;
  },
  writeSyncLog: (data, id, patch) => updateSyncLog(data, id, patch),
};

/** The seams for `env`: the deployment's service profile's (the Worker tests' vendor fakes), else the device core's. */
export function platformServices(env: Env): PlatformServices {
  return serviceProfileOf<ServiceProfile>(env)?.devicePlatforms?.(env) ?? devicePlatformServices;
}
