// Google Health roll-ups (discovery document rev. 20260527: `dataPoints:rollUp`, a POST of
// RollUpDataPointsRequest {range: {startTime, endTime}, windowSize, pageSize, pageToken} →
// RollUpDataPointsResponse {rollupDataPoints: [{startTime, endTime, <type member>}], nextPageToken}).
// Google aggregates the reconciled samples of each physical-time window; one window becomes one
// reading over that window: the mean (or sum) as the value, the minimum and maximum as
// statistics where Google gives them. Ranges are capped by Google (14 days for heart rate, 90
// for the rest), so a long sync walks chunks; the cursor carries the chunk and Google's page token.
import { type FetchedPage, PlatformError, type LinkedDevice, type PlatformCall } from "../../platform-adapter";
import type { Reading } from "../../reading";
import { reading } from "../readings";
import { vendorJson } from "../vendor-http";
import { GOOGLE_HEALTH_KIND, int64, memberOf } from "./mapping";

/** Our resolution names → Google's windowSize (google-duration). Raw samples use the list endpoint. */
export const ROLLUP_WINDOWS: Readonly<Record<string, number>> = { "1m": 60, "5m": 300, "15m": 900 };

type Doc = Readonly<Record<string, unknown>>;
const obj = (v: unknown): Doc => (v && typeof v === "object" && !Array.isArray(v) ? (v as Doc) : {});

interface RollupField {
  readonly metric: string;
  readonly unit: string;
  /** The value: Google's mean or sum. */
  readonly value: string;
  readonly min?: string;
  readonly max?: string;
  readonly attributes?: Readonly<Record<string, string>>;
}

const mean = { statistic: "average" };
const sum = { statistic: "sum" };

/** Per data type, the RollupDataPoint member's fields we keep (units as Google names them). */
export const ROLLUP_FIELDS: Readonly<Record<string, RollupField>> = {
  "heart-rate": { metric: "heart_rate", unit: "/min", value: "beatsPerMinuteAvg", min: "beatsPerMinuteMin", max: "beatsPerMinuteMax", attributes: mean },
  steps: { metric: "steps", unit: "steps", value: "countSum", attributes: sum },
  distance: { metric: "distance", unit: "mm", value: "millimetersSum", attributes: sum },
  weight: { metric: "weight", unit: "g", value: "weightGramsAvg", attributes: mean },
  "body-fat": { metric: "body_fat", unit: "%", value: "bodyFatPercentageAvg", attributes: mean },
  "core-body-temperature": { metric: "body_temperature", unit: "Cel", value: "temperatureCelsiusAvg", min: "temperatureCelsiusMin", max: "temperatureCelsiusMax", attributes: mean },
  "blood-glucose": { metric: "blood_glucose", unit: "mg/dL", value: "bloodGlucoseMilligramsPerDeciliterAvg", attributes: mean },
  "active-energy-burned": { metric: "calories", unit: "kcal", value: "kcalSum", attributes: { ...sum, kind: "active" } },
  floors: { metric: "floors", unit: "floors", value: "countSum", attributes: sum },
  altitude: { metric: "elevation_gain", unit: "mm", value: "gainMillimetersSum", attributes: sum },
};

/** Google's longest roll-up range per type (RollUpDataPointsRequest.range). */
const maxRangeDays = (dataType: string) => (["heart-rate", "active-minutes", "total-calories", "calories-in-heart-rate-zone"].includes(dataType) ? 14 : 90);

/** One RollupDataPoint → a reading over its window; none when Google had nothing to aggregate. */
export function mapRollup(device: LinkedDevice, dataType: string, resolution: string, point: unknown): Reading[] {
  const field = Object.hasOwn(ROLLUP_FIELDS, dataType) ? ROLLUP_FIELDS[dataType] : undefined;
  const p = obj(point);
  const v = obj(p[memberOf(dataType)]);
  const value = field ? int64(v[field.value]) : undefined;
  const start = typeof p.startTime === "string" ? Date.parse(p.startTime) : Number.NaN;
  const end = typeof p.endTime === "string" ? Date.parse(p.endTime) : Number.NaN;
  if (!field || value === undefined || !Number.isFinite(start) || !(end > start)) return [];
  const startIso = new Date(start).toISOString();
  const [minimum, maximum] = [field.min, field.max].map((k) => (k ? int64(v[k]) : undefined));
  const statistics = { ...(minimum !== undefined ? { minimum } : {}), ...(maximum !== undefined ? { maximum } : {}) };
  const r = reading(GOOGLE_HEALTH_KIND, device, {
    metric: field.metric,
    value,
    unit: field.unit,
    time: { start: startIso, end: new Date(end).toISOString() },
    // The same window of the same device's type at the same resolution is the same Observation on every sync.
    sourceRecordId: `${device.deviceId}/${dataType}/${resolution}@${startIso}`,
    attributes: { ...field.attributes, resolution },
  });
  return [Object.keys(statistics).length ? { ...r, statistics } : r];
}

/** Whole windows only: a window still filling would be stored once with a partial value. */
const floorTo = (ms: number, windowMs: number) => Math.floor(ms / windowMs) * windowMs;

/** The cursor: the chunk's start (epoch ms) and Google's page token within it. */
function parseCursor(cursor: string | undefined): { chunkStart?: number; pageToken?: string } {
  if (!cursor) return {};
  const at = cursor.indexOf(":");
  const chunkStart = Number(cursor.slice(0, at));
  if (at < 0 || !Number.isFinite(chunkStart)) throw new PlatformError("invalid", `not a roll-up cursor: ${cursor}`);
  const pageToken = cursor.slice(at + 1);
  return { chunkStart, ...(pageToken ? { pageToken } : {}) };
}

export interface RollupRange {
  readonly dataType: string;
  readonly resolution: string;
  readonly from: string;
  readonly to: string;
  readonly cursor?: string;
}

/** One page of a type's roll-up over [from, to) at `resolution`, through `dataPoints:rollUp`. */
export async function rollUpPage(call: PlatformCall, apiBase: string, device: LinkedDevice, range: RollupRange): Promise<FetchedPage> {
  const seconds = ROLLUP_WINDOWS[range.resolution];
  if (!seconds || !Object.hasOwn(ROLLUP_FIELDS, range.dataType)) throw new PlatformError("invalid", `Google Health cannot roll ${range.dataType} up at ${range.resolution}`);
  const windowMs = seconds * 1000;
  const from = floorTo(Date.parse(range.from), windowMs);
  const to = floorTo(Date.parse(range.to), windowMs);
  const { chunkStart = from, pageToken } = parseCursor(range.cursor);
  // Chunks are whole windows and within Google's range cap.
  const chunkMs = floorTo(maxRangeDays(range.dataType) * 86_400_000, windowMs);
  const chunkEnd = Math.min(chunkStart + chunkMs, to);
  if (chunkEnd <= chunkStart) return { readings: [] };
  const body = {
    range: { startTime: new Date(chunkStart).toISOString(), endTime: new Date(chunkEnd).toISOString() },
    windowSize: `${seconds}s`,
    pageSize: 10_000,
    ...(pageToken ? { pageToken } : {}),
  };
  const page = await vendorJson<{ rollupDataPoints?: unknown[]; nextPageToken?: string }>(call, `${apiBase}/v4/users/me/dataTypes/${range.dataType}/dataPoints:rollUp`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const readings = (page.rollupDataPoints ?? []).flatMap((p) => mapRollup(device, range.dataType, range.resolution, p));
  const nextCursor = page.nextPageToken ? `${chunkStart}:${page.nextPageToken}` : chunkEnd < to ? `${chunkEnd}:` : undefined;
  return { readings, ...(nextCursor ? { nextCursor } : {}) };
}
