// The device feature's D1 tables (on the org's shard; org_id leads every key):
// integrations (platform credentials, AES-GCM sealed), patient device links (one per FHIR
// Device, with the device's platform tokens sealed), sync logs, and the compact time series
// the vitals query reads (the Observations stay the record; these are an index of them).
import { index, integer, primaryKey, real, sqliteTable, text } from "drizzle-orm/sqlite-core";

export const deviceIntegrations = sqliteTable(
  "device_integrations",
  {
    orgId: text("org_id").notNull(),
    id: text("id").notNull(),
    platform: text("platform").notNull(),
    name: text("name").notNull(),
    status: text("status").notNull(),
    credentialsEnc: text("credentials_enc"),
    credentialsMasked: text("credentials_masked", { mode: "json" }).$type<Record<string, string>>().notNull(),
    settings: text("settings", { mode: "json" }).$type<Record<string, string>>().notNull(),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.orgId, t.id] }), index("device_integrations_org_platform_idx").on(t.orgId, t.platform)],
);

export const deviceLinks = sqliteTable(
  "device_links",
  {
    orgId: text("org_id").notNull(),
    /** The FHIR Device id. */
    deviceId: text("device_id").notNull(),
    patientId: text("patient_id").notNull(),
    name: text("name").notNull(),
    platform: text("platform").notNull(),
    integrationId: text("integration_id"),
    platformDeviceId: text("platform_device_id"),
    platformUserId: text("platform_user_id"),
    /** The device's platform tokens (PlatformTokens JSON), AES-GCM sealed. */
    tokensEnc: text("tokens_enc"),
    status: text("status").notNull(),
    lastSyncAt: text("last_sync_at"),
    createdAt: text("created_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.orgId, t.deviceId] }), index("device_links_org_patient_idx").on(t.orgId, t.patientId)],
);

export const deviceSyncLogs = sqliteTable(
  "device_sync_logs",
  {
    orgId: text("org_id").notNull(),
    id: text("id").notNull(),
    deviceId: text("device_id").notNull(),
    state: text("state").notNull(),
    fromDate: text("from_date").notNull(),
    toDate: text("to_date").notNull(),
    /** Per data type: state, pages, readings, created, duplicates, errors. */
    progress: text("progress", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
    requestedBy: text("requested_by").notNull(),
    createdAt: text("created_at").notNull(),
    startedAt: text("started_at"),
    finishedAt: text("finished_at"),
  },
  (t) => [primaryKey({ columns: [t.orgId, t.id] }), index("device_sync_logs_org_device_idx").on(t.orgId, t.deviceId, t.createdAt)],
);

/** One numeric sample per (patient, metric, instant, device): what the vitals query reads at full resolution. */
export const deviceSamples = sqliteTable(
  "device_samples",
  {
    orgId: text("org_id").notNull(),
    patientId: text("patient_id").notNull(),
    metric: text("metric").notNull(),
    t: integer("t").notNull(),
    deviceId: text("device_id").notNull(),
    value: real("value").notNull(),
  },
  (t) => [primaryKey({ columns: [t.orgId, t.patientId, t.metric, t.t, t.deviceId] })],
);

/** Hourly aggregates per device, recomputed from the samples on every ingest: long windows read these. */
export const deviceRollups = sqliteTable(
  "device_rollups",
  {
    orgId: text("org_id").notNull(),
    patientId: text("patient_id").notNull(),
    metric: text("metric").notNull(),
    bucket: integer("bucket").notNull(),
    deviceId: text("device_id").notNull(),
    n: integer("n").notNull(),
    total: real("total").notNull(),
    min: real("min").notNull(),
    max: real("max").notNull(),
  },
  (t) => [primaryKey({ columns: [t.orgId, t.patientId, t.metric, t.bucket, t.deviceId] })],
);

export type DeviceIntegrationRow = typeof deviceIntegrations.$inferSelect;
export type DeviceLinkRow = typeof deviceLinks.$inferSelect;
export type DeviceSyncLogRow = typeof deviceSyncLogs.$inferSelect;

/**
 * Each organization's source priority for the vitals query: per vitals metric (or "default"), the
 * platforms in the order their devices win an hour two sources report. One row per org; absent = none.
 */
export const deviceSourcePriorities = sqliteTable(
  "device_source_priorities",
  {
    orgId: text("org_id").notNull(),
    priorities: text("priorities", { mode: "json" }).$type<Record<string, string[]>>().notNull(),
    updatedAt: text("updated_at").notNull(),
    updatedBy: text("updated_by").notNull(),
  },
  (t) => [primaryKey({ columns: [t.orgId] })],
);

export type DeviceSourcePriorityRow = typeof deviceSourcePriorities.$inferSelect;

/**
 * Readings whose Observation another patient's reading took over, before a reading's identity
 * named its device link (found in the Observations' history by the data migration
 * 0017_device_reading_identity): the version that moved it, whose it was and whose it became.
 * `restoredObservationId` once the first patient's reading is an Observation of its own again
 * (`POST /api/v1/devices/reading-moves/restore`, docs/devices.md "Reading identity").
 */
export const deviceReadingMoves = sqliteTable(
  "device_reading_moves",
  {
    orgId: text("org_id").notNull(),
    observationId: text("observation_id").notNull(),
    /** The version whose subject is another patient's than the version before it. */
    versionId: integer("version_id").notNull(),
    fromPatientId: text("from_patient_id").notNull(),
    toPatientId: text("to_patient_id").notNull(),
    fromDeviceId: text("from_device_id"),
    toDeviceId: text("to_device_id"),
    movedAt: text("moved_at").notNull(),
    foundAt: text("found_at").notNull(),
    restoredObservationId: text("restored_observation_id"),
    restoredAt: text("restored_at"),
  },
  (t) => [primaryKey({ columns: [t.orgId, t.observationId, t.versionId] })],
);

export type DeviceReadingMoveRow = typeof deviceReadingMoves.$inferSelect;
