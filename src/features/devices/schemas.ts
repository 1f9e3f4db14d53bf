// The device API's zod schemas (validation and OpenAPI) and presenters. A batch of readings is
// checked item by item (readReadings): one bad reading is answered with its field, the rest go in.
import { z } from "@hono/zod-openapi";
import { zodDetails } from "../../platform/http/router";
import { jsonAtMost } from "../../platform/http/schemas";
import type { FieldError } from "../../platform/errors";
import { VITALS_METRIC_NAMES } from "./metrics/table";
import type { SourcePriority } from "./store/source-priority";
import { DEFAULT_PRIORITY_KEY } from "./use-cases/source-priority";
import { MAX_DAYS } from "./use-cases/vitals";
import { SERIES_STATISTICS } from "./metrics/normalise";
import type { Reading } from "./reading";
import type { TypeProgress } from "./store/sync-logs";
import type { DeviceIntegrationRow, DeviceLinkRow, DeviceReadingMoveRow, DeviceSyncLogRow } from "./tables";

const param = (name: string) => z.string().min(1).max(64).openapi({ param: { name, in: "path" } });
export const PatientParam = z.object({ patientId: param("patientId") });
export const PatientDeviceParam = z.object({ patientId: param("patientId"), deviceId: param("deviceId") });
export const DeviceParam = z.object({ deviceId: param("deviceId") });
export const IdParam = z.object({ id: param("id") });

// ---- readings

const Time = z.union([z.object({ at: z.string() }).strict(), z.object({ start: z.string(), end: z.string() }).strict()]);

export const ReadingInput = z
  .object({
    patient_id: z.string().min(1).max(64),
    device_id: z.string().min(1).max(64).openapi({ description: "The linked FHIR Device id" }),
    metric: z.string().min(1).max(64).openapi({ description: "A metric of the metric table (docs/devices.md), e.g. heart_rate, blood_pressure, cgm_glucose" }),
    value: z.number().nullable().optional(),
    components: z.array(z.object({ metric: z.string().max(64), value: z.number().nullable().optional(), unit: z.string().max(64) }).strict()).max(10).optional(),
    unit: z.string().max(64).openapi({ description: "UCUM or a common spelling (bpm, lb, kJ, °F, fraction, mmol/L); normalised to the metric's UCUM unit" }),
    time: Time.openapi({ description: "{at} for an instant, {start, end} for an interval aggregate; ISO 8601 with offset" }),
    platform: z.string().min(1).max(64),
    source_record_id: z.string().min(1).max(256).openapi({ description: "The source's id for the record, unique within the device (a vendor's within its user): with the platform, the device and the metric it makes the reading idempotent" }),
    absent_reason: z.enum(["error", "not-performed", "unknown", "asked-declined"]).optional(),
    attributes: z.record(z.string().max(64), z.string().max(256)).optional(),
    samples: z.object({ period_ms: z.number().positive(), values: z.array(z.number()).min(1).max(100_000), origin: z.number().optional() }).strict().optional(),
  })
  .strict()
  .openapi("DeviceReading");

export const MAX_READINGS = 1000;

export const ReadingsBody = z
  .object({
    readings: z
      .array(z.record(z.string(), z.unknown()).openapi({ description: "A DeviceReading (components/schemas/DeviceReading); each is checked on its own and answered in results" }))
      .min(1)
      .max(MAX_READINGS),
  })
  .openapi("DeviceReadingsRequest");

export const ReadingsResult = z
  .object({
    results: z.array(
      z.object({
        index: z.number().int(),
        status: z.enum(["created", "updated", "duplicate", "rejected"]).openapi({
          description: "`updated`: the reading's Observation existed with other content (a vendor's changed record) and has a new version; `duplicate`: it existed unchanged (or retracted), nothing written",
        }),
        observation_id: z.string().optional(),
        errors: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
      }),
    ),
    created: z.number().int(),
    updated: z.number().int(),
    duplicates: z.number().int(),
    rejected: z.number().int(),
  })
  .openapi("DeviceReadingsResult");

/** Each item as a Reading, or its errors with paths under `readings[i]`. */
export function readReadings(items: readonly unknown[]): { index: number; reading?: Reading; errors?: FieldError[] }[] {
  return items.map((item, index) => {
    const parsed = ReadingInput.safeParse(item);
    if (!parsed.success) return { index, errors: zodDetails(parsed.error).map((e) => ({ ...e, path: `readings[${index}].${e.path}` })) };
    const r = parsed.data;
    const reading: Reading = {
      patientId: r.patient_id,
      deviceId: r.device_id,
      metric: r.metric,
      ...(r.value !== undefined && r.value !== null ? { value: r.value } : {}),
      ...(r.components ? { components: r.components.map((c) => ({ metric: c.metric, unit: c.unit, ...(c.value !== undefined && c.value !== null ? { value: c.value } : {}) })) } : {}),
      unit: r.unit,
      time: r.time,
      platform: r.platform,
      sourceRecordId: r.source_record_id,
      ...(r.absent_reason ? { absentReason: r.absent_reason } : {}),
      ...(r.attributes ? { attributes: r.attributes } : {}),
      ...(r.samples ? { samples: { periodMs: r.samples.period_ms, values: r.samples.values, ...(r.samples.origin !== undefined ? { origin: r.samples.origin } : {}) } } : {}),
    };
    return { index, reading };
  });
}

// ---- integrations

const MAX_CREDENTIALS_BYTES = 64 * 1024;

export const IntegrationBody = z
  .object({
    platform: z.string().max(64).openapi({ description: "Platform kind (spec 2.10), e.g. smart_ring" }),
    name: z.string().trim().min(1).max(200),
    credentials: z
      .record(z.string().max(200), z.string().max(8192))
      .superRefine(jsonAtMost(MAX_CREDENTIALS_BYTES))
      .optional()
      .openapi({ description: "client_id, client_secret, webhook secrets...; required on create, omit on update to keep; encrypted, never returned" }),
    settings: z.record(z.string().max(200), z.string().max(2048)).optional().openapi({ description: "Non-secret settings (base URL overrides, scopes)" }),
  })
  .strict()
  .openapi("DeviceIntegrationInput");

export const Integration = z
  .object({
    id: z.string(),
    platform: z.string(),
    name: z.string(),
    status: z.string().openapi({ description: "Active once saved" }),
    credentials: z.record(z.string(), z.string()).openapi({
      description: "Each field masked, never the value: \"****\" and the value's last four characters when it has 16 or more, else \"****\"",
      example: { client_id: "****", client_secret: "****9876" },
    }),
    settings: z.record(z.string(), z.string()),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi("DeviceIntegration");

export const presentIntegration = (r: DeviceIntegrationRow): z.infer<typeof Integration> => ({
  id: r.id,
  platform: r.platform,
  name: r.name,
  status: r.status,
  credentials: r.credentialsMasked,
  settings: r.settings,
  created_at: r.createdAt,
  updated_at: r.updatedAt,
});

// ---- patient devices

export const LinkBody = z
  .object({
    name: z.string().trim().min(1).max(200).openapi({ description: "Shown as Observation.device.display" }),
    platform: z.string().min(1).max(64).openapi({ description: "Platform kind, or mqtt / manual" }),
    integration_id: z.string().max(64).optional(),
    platform_device_id: z.string().max(256).optional(),
    platform_user_id: z.string().max(256).optional(),
    manufacturer: z.string().max(200).optional(),
    model: z.string().max(200).optional(),
    serial_number: z.string().max(200).optional(),
    tokens: z
      .object({ access_token: z.string().max(8192), refresh_token: z.string().max(8192).optional(), expires_at: z.string().optional(), scope: z.string().max(2048).optional() })
      .strict()
      .optional()
      .openapi({ description: "The patient's platform tokens; encrypted, never returned" }),
  })
  .strict()
  .openapi("PatientDeviceInput");

export const PatientDevice = z
  .object({
    device_id: z.string().openapi({ description: "The FHIR Device id" }),
    patient_id: z.string(),
    name: z.string(),
    platform: z.string(),
    integration_id: z.string().nullable(),
    platform_device_id: z.string().nullable(),
    status: z.string(),
    last_sync_at: z.string().nullable(),
    created_at: z.string(),
  })
  .openapi("PatientDevice");

export const presentLink = (r: DeviceLinkRow): z.infer<typeof PatientDevice> => ({
  device_id: r.deviceId,
  patient_id: r.patientId,
  name: r.name,
  platform: r.platform,
  integration_id: r.integrationId,
  platform_device_id: r.platformDeviceId,
  status: r.status,
  last_sync_at: r.lastSyncAt,
  created_at: r.createdAt,
});

// ---- vitals and timeline

// ---- source priority

const PRIORITY_KEYS = [DEFAULT_PRIORITY_KEY, ...VITALS_METRIC_NAMES] as const;
const PlatformOrder = z
  .array(z.string().regex(/^[a-z0-9_-]{1,64}$/, "a platform kind (e.g. smart_ring, sports_watch, mqtt, manual)"))
  .min(1)
  .max(20)
  .refine((list) => new Set(list).size === list.length, "a platform is listed twice");

export const SourcePriorityBody = z
  .object({
    priorities: z
      .record(z.string(), PlatformOrder)
      .superRefine((map, ctx) => {
        for (const key of Object.keys(map)) {
          if (!(PRIORITY_KEYS as readonly string[]).includes(key)) ctx.addIssue({ code: "custom", path: [key], message: `allowed keys: ${PRIORITY_KEYS.join(", ")}` });
        }
      })
      .openapi({
        description: `Per vitals metric (or "${DEFAULT_PRIORITY_KEY}" for the others): device platforms, first wins an hour two sources report. Platforms not listed come after the listed ones. An empty object clears the priority.`,
        example: { steps: ["smart_ring", "sports_watch"], default: ["mqtt"] },
      }),
  })
  .strict()
  .openapi("DeviceSourcePriorityInput");

export const SourcePrioritySchema = z
  .object({ priorities: z.record(z.string(), z.array(z.string())), updated_at: z.string().nullable(), updated_by: z.string().nullable() })
  .openapi("DeviceSourcePriority");

export const presentSourcePriority = (p: SourcePriority) => ({ priorities: p.priorities, updated_at: p.updatedAt, updated_by: p.updatedBy });

export const VitalsQuery = z.object({
  metric: z.string().max(64).openapi({ description: "heart_rate, spo2, sleep, sleep_efficiency, calories, active_minutes, distance, steps, hrv, stress, body_battery, respiratory_rate, blood_glucose" }),
  days: z.coerce.number().int().min(1).max(MAX_DAYS).default(7),
});

const VitalsPoints = z.array(
  z.object({
    timestamp: z.string(),
    value: z.number(),
    device: z.object({ id: z.string(), name: z.string().nullable() }),
    count: z.number().int().optional(),
    min: z.number().optional(),
    max: z.number().optional(),
  }),
);
const VitalsSummary = z.object({ min: z.number().nullable(), max: z.number().nullable(), average: z.number().nullable(), count: z.number().int() });
const VitalsResolution = z.enum(["raw", "hour", "day"]).openapi({ description: "raw samples, or hourly/daily averages when the window holds more than 2000 samples" });

export const Vitals = z
  .object({
    metric: z.string(),
    unit: z.string(),
    days: z.number().int(),
    resolution: VitalsResolution,
    data_points: VitalsPoints.openapi({ description: "The metric's samples (a vendor's aggregates are in `aggregates`, never here)" }),
    summary: VitalsSummary,
    aggregates: z
      .array(z.object({ statistic: z.enum(SERIES_STATISTICS), resolution: VitalsResolution, data_points: VitalsPoints, summary: VitalsSummary }))
      .openapi({
        description:
          "A vendor's aggregates of the metric (a day's average heart rate, the night's lowest body battery, a workout's average), one series per statistic the window holds, each at its window's start and folded like the samples; empty when there are none",
      }),
  })
  .openapi("VitalsResult");

// ---- sync

export const SyncBody = z
  .object({
    data_types: z.array(z.string().max(64)).max(50).optional().openapi({ description: "Omitted: every data type the platform offers" }),
    days: z.number().int().optional().openapi({ description: "Look-back in days (default 7), within the platform's limit" }),
    from_date: z.string().max(40).optional().openapi({ description: "ISO 8601; instead of days" }),
    resolution: z
      .record(z.string().max(64), z.string().max(16))
      .optional()
      .openapi({ description: 'Per data type, "raw" (the samples as recorded) or a roll-up window the platform offers for it (Google Health: "1m", "5m", "15m"); omitted: the integration\'s `resolution.<data type>` setting, else raw', example: { "heart-rate": "5m" } }),
    to_date: z.string().max(40).optional().openapi({ description: "ISO 8601; default now" }),
  })
  .strict()
  .openapi("DeviceSyncRequest");

const TypeProgressSchema = z.object({
  data_type: z.string(),
  state: z.enum(["pending", "running", "completed", "failed"]),
  pages_fetched: z.number().int(),
  readings_received: z.number().int(),
  observations_created: z.number().int(),
  observations_updated: z
    .number()
    .int()
    .optional()
    .openapi({ description: "Readings whose Observation existed with other content and got a new version (absent from logs written before updates were counted, and from file imports, whose samples never change)" }),
  duplicates_skipped: z.number().int(),
  readings_rejected: z.number().int(),
  rate_limited: z.number().int(),
  errors: z.array(z.object({ reason: z.string(), record: z.string().optional() })),
  // A file import (Apple Health export.xml) also reports how far through the file it is.
  bytes_total: z.number().int().optional(),
  bytes_processed: z.number().int().optional(),
  records_read: z.number().int().optional(),
  records_skipped: z.number().int().optional(),
  skipped_by_reason: z.record(z.string(), z.number().int()).optional(),
});

export const SyncLog = z
  .object({
    sync_id: z.string(),
    device_id: z.string(),
    state: z.enum(["queued", "running", "completed", "partially_failed", "failed"]),
    from_date: z.string(),
    to_date: z.string(),
    data_types: z.array(TypeProgressSchema),
    created_at: z.string(),
    started_at: z.string().nullable(),
    finished_at: z.string().nullable(),
  })
  .openapi("DeviceSyncLog");

export const presentSyncLog = (r: DeviceSyncLogRow): z.infer<typeof SyncLog> => ({
  sync_id: r.id,
  device_id: r.deviceId,
  state: r.state as z.infer<typeof SyncLog>["state"],
  from_date: r.fromDate,
  to_date: r.toDate,
  data_types: Object.entries(r.progress as Record<string, TypeProgress>).map(([data_type, p]) => ({ data_type, ...p })),
  created_at: r.createdAt,
  started_at: r.startedAt,
  finished_at: r.finishedAt,
});

export const ReadingMove = z
  .object({
    observation_id: z.string(),
    version_id: z.number().int().openapi({ description: "The Observation's version whose subject another patient's reading replaced" }),
    moved_at: z.string(),
    from_patient_id: z.string(),
    from_device_id: z.string().nullable(),
    to_patient_id: z.string(),
    to_device_id: z.string().nullable(),
    found_at: z.string(),
    restored_observation_id: z.string().nullable().openapi({ description: "The first patient's reading as an Observation of its own again, once restored" }),
    restored_at: z.string().nullable(),
  })
  .openapi("DeviceReadingMove");

export const presentReadingMove = (r: DeviceReadingMoveRow): z.infer<typeof ReadingMove> => ({
  observation_id: r.observationId,
  version_id: r.versionId,
  moved_at: r.movedAt,
  from_patient_id: r.fromPatientId,
  from_device_id: r.fromDeviceId,
  to_patient_id: r.toPatientId,
  to_device_id: r.toDeviceId,
  found_at: r.foundAt,
  restored_observation_id: r.restoredObservationId,
  restored_at: r.restoredAt,
});

export const ReadingMovesRestored = z.object({ restored: z.number().int(), skipped: z.number().int().openapi({ description: "Moves whose earlier version could not be read back as a reading (left as they are)" }) }).openapi("DeviceReadingMovesRestored");
