// The device core's side of the platforms' seams (platforms/services.ts): an org's client
// credentials come from its device integration for that platform (client_id / client_secret, the
// rest as vendor extras with the non-secret settings), link status is the device link's, and
// webhook readings go through the device core's ingest (Observations, dedup, threshold alerts) as
// the platform. src/main/ hands it down unless the deployment's service profile replaces it.
import type { PlatformServices } from "./platforms/services";
import { findIntegrationByPlatform, integrationCredentials, updateIntegration } from "./store/integrations";
import { findLink, updateLink } from "./store/links";
import { insertSyncLog, updateSyncLog } from "./store/sync-logs";
import { ingestReadings } from "./use-cases/ingest";
import { vendorFetch } from "./vendor-fetch";
import { retractObservationIds, retractSourceRecords } from "./use-cases/retract";
import type { Principal } from "../tenancy";
import { logger } from "../../platform/observability/log";

/** Who stores a platform's webhook readings: the platform itself, as a service. */
const platformPrincipal = (orgId: string, kind: string): Principal => ({ orgId, keyId: `device-platform:${kind}`, keyName: `${kind} webhooks`, role: "service", scopes: [] });

export const devicePlatformServices: PlatformServices = {
  async credentialsFor(ctx, kind) {
    const row = await findIntegrationByPlatform(ctx, kind);
    if (!row) return undefined;
    const { client_id: clientId, client_secret: clientSecret, ...secrets } = await integrationCredentials(ctx, row);
    return { ...(clientId ? { clientId } : {}), ...(clientSecret ? { clientSecret } : {}), extra: { ...row.settings, ...secrets } };
  },
  async keepCredentials(ctx, kind, credentials) {
    const row = await findIntegrationByPlatform(ctx, kind);
    if (!row) throw new Error(`no ${kind} integration to keep credentials in`);
    const current = await integrationCredentials(ctx, row);
    await updateIntegration(ctx, row.id, { platform: row.platform, name: row.name, settings: row.settings, credentials: { ...current, ...credentials } });
  },
  async linkStatus(ctx, deviceId, status, reason) {
    await updateLink(ctx, deviceId, { status });
    logger(ctx.env).info("device link status", { org: ctx.orgId, device_id: deviceId, status, reason });
  },
  async ingest(ctx, kind, readings, deleted, outcomes) {
    const results = readings.length ? await ingestReadings(ctx, platformPrincipal(ctx.orgId, kind), readings, outcomes) : [];
    // A vendor's delete marks the record's Observations entered-in-error (never deleted) and takes them out of the vitals.
    if (deleted.length) {
      const marked = await retractSourceRecords(ctx, platformPrincipal(ctx.orgId, kind), kind, deleted);
      logger(ctx.env).info("device records deleted at the vendor", { org: ctx.orgId, platform: kind, records: deleted.length, observations_marked: marked });
    }
    return results;
  },
  // Vendor calls fail with their cause named (DNS, refused, timeout, TLS) and a time limit.
  fetch: (env) => vendorFetch(env),
  async device(ctx, deviceId) {
    const row = await findLink(ctx, deviceId);
    return row && { deviceId: row.deviceId, patientId: row.patientId, platform: row.platform, status: row.status };
  },
  async store(ctx, kind, readings) {
    return readings.length ? ingestReadings(ctx, platformPrincipal(ctx.orgId, kind), readings) : [];
  },
  async retract(ctx, kind, ids, keep = []) {
    return ids.length ? retractObservationIds(ctx, platformPrincipal(ctx.orgId, kind), ids, new Set(keep)) : 0;
  },
  async openSyncLog(ctx, entry) {
    const id = crypto.randomUUID();
    await insertSyncLog(ctx, { orgId: ctx.orgId, id, deviceId: entry.deviceId, state: "queued", fromDate: entry.from, toDate: entry.to, progress: entry.progress, requestedBy: entry.requestedBy, createdAt: new Date().toISOString(), startedAt: null, finishedAt: null });
    return id;
  },
  writeSyncLog: (ctx, id, patch) => updateSyncLog(ctx, id, patch),
};

