// The vitals query (spec 2.8): a patient's readings of one metric over the last `days`, read
// from the time series (never by scanning Observations). Resolution adapts so the answer stays
// small: raw samples while a window holds at most RAW_POINTS of them, hourly averages while it
// spans at most RAW_POINTS hours, daily beyond. Each hour counts one source (time-series.ts), so a
// metric two devices report for the same interval is not counted twice; the summary is over the
// same samples as the points. The window starts on the hour, `days` back from now. A vendor's
// aggregates (its series `<metric>@<statistic>`) are answered beside the samples, never among them.
import { badRequest } from "../../../platform/errors";
import type { OrgData } from "../../../platform/org-data";
import type { FhirPort } from "../../fhir";
import { metricDefinition, VITALS_METRIC_NAMES, VITALS_METRICS, type VitalsMetric } from "../metrics/table";
import { findLinks } from "../store/links";
import { sourceRank } from "./source-priority";
import { chosenRollups, DAY_MS, HOUR_MS, type RawPoint, type Rollup, rawSamples, seriesKey, seriesPresent, singleSourceBuckets, windowStats } from "../store/time-series";
import { SERIES_STATISTICS, type SeriesStatistic } from "../metrics/normalise";

export const RAW_POINTS = 2000;
export const MAX_DAYS = 730;

export interface VitalsPoint {
  timestamp: string;
  value: number;
  device: { id: string; name: string | null };
  /** Bucketed points: how many samples the average covers, and their range. */
  count?: number;
  min?: number;
  max?: number;
}

export interface VitalsResult {
  metric: VitalsMetric;
  unit: string;
  days: number;
  resolution: "raw" | "hour" | "day";
  data_points: VitalsPoint[];
  summary: { min: number | null; max: number | null; average: number | null; count: number };
  /** The vendor's aggregates of the metric, per statistic (empty when the window holds none). */
  aggregates: ({ statistic: SeriesStatistic } & Pick<VitalsResult, "resolution" | "data_points" | "summary">)[];
}

export function checkVitalsMetric(metric: string): VitalsMetric {
  if (!(VITALS_METRIC_NAMES as string[]).includes(metric)) {
    throw badRequest(`Unknown metric "${metric}"`, [{ path: "metric", message: `allowed: ${VITALS_METRIC_NAMES.join(", ")}` }]);
  }
  return metric as VitalsMetric;
}

const round = (v: number) => Math.round(v * 1000) / 1000;

function summaryOf(parts: { n: number; total: number; min: number; max: number }[]): VitalsResult["summary"] {
  const count = parts.reduce((a, p) => a + p.n, 0);
  if (!count) return { min: null, max: null, average: null, count: 0 };
  return { min: Math.min(...parts.map((p) => p.min)), max: Math.max(...parts.map((p) => p.max)), average: round(parts.reduce((a, p) => a + p.total, 0) / count), count };
}

/** Daily buckets from the chosen hourly ones: a day's source may change hour by hour, each hour counted once. */
function daily(rollups: Rollup[]): Rollup[] {
  const days = new Map<number, Rollup & { sources: Map<string, number> }>();
  for (const r of rollups) {
    const bucket = Math.floor(r.bucket / DAY_MS) * DAY_MS;
    const d = days.get(bucket) ?? { bucket, deviceId: r.deviceId, n: 0, total: 0, min: r.min, max: r.max, sources: new Map() };
    d.sources.set(r.deviceId, (d.sources.get(r.deviceId) ?? 0) + r.n);
    days.set(bucket, { ...d, n: d.n + r.n, total: d.total + r.total, min: Math.min(d.min, r.min), max: Math.max(d.max, r.max) });
  }
  return [...days.values()].map(({ sources, ...d }) => ({ ...d, deviceId: [...sources].sort((a, b) => b[1] - a[1])[0]![0] }));
}

type Series = Pick<VitalsResult, "resolution" | "data_points" | "summary">;

/** One series (the samples, or one statistic's aggregates) of the window: resolution, points with their devices' names, summary. */
async function series(ctx: OrgData, patientId: string, metric: VitalsMetric, keys: readonly string[], since: number): Promise<Series> {
  const stats = await windowStats(ctx.d1, ctx.orgId, patientId, keys, since);
  // Only where two sources may overlap does the org's source priority matter.
  const rank = stats.devices > 1 ? await sourceRank(ctx, patientId, metric) : undefined;
  let resolution: VitalsResult["resolution"];
  let rollups: Rollup[];
  let points: { t: number; deviceId: string; value: number; count?: number; min?: number; max?: number }[];
  if (stats.samples <= RAW_POINTS) {
    resolution = "raw";
    rollups = await chosenRollups(ctx.d1, ctx.orgId, patientId, keys, since, rank);
    const chosen = new Map(rollups.map((r) => [r.bucket, r.deviceId]));
    points = (await rawSamples(ctx.d1, ctx.orgId, patientId, keys, since)).filter((p: RawPoint) => chosen.get(Math.floor(p.t / HOUR_MS) * HOUR_MS) === p.deviceId);
  } else {
    resolution = stats.hours <= RAW_POINTS ? "hour" : "day";
    const size = resolution === "hour" ? HOUR_MS : DAY_MS;
    if (stats.devices <= 1) rollups = await singleSourceBuckets(ctx.d1, ctx.orgId, patientId, keys, since, size);
    else {
      const hourly = await chosenRollups(ctx.d1, ctx.orgId, patientId, keys, since, rank);
      rollups = resolution === "hour" ? hourly : daily(hourly);
    }
    points = rollups.map((b) => ({ t: b.bucket, deviceId: b.deviceId, value: round(b.total / b.n), count: b.n, min: b.min, max: b.max }));
  }
  const names = new Map((await findLinks(ctx, [...new Set(points.map((p) => p.deviceId))])).map((l) => [l.deviceId, l.name]));
  return {
    resolution,
    data_points: points.map((p) => ({ timestamp: new Date(p.t).toISOString(), value: p.value, device: { id: p.deviceId, name: names.get(p.deviceId) ?? null }, ...(p.count !== undefined ? { count: p.count, min: p.min, max: p.max } : {}) })),
    summary: summaryOf(rollups),
  };
}

/**
 * `fhir` is the caller's view of the store: the patient must be one it can read (another org's is 404).
 * `data_points` and `summary` are the metric's samples; a vendor's aggregates of it (a day's average
 * heart rate, the night's lowest body battery, a workout's average) are their own series in
 * `aggregates`, one per statistic the window holds, each folded the same way.
 */
export async function patientVitals(ctx: OrgData, fhir: FhirPort, patientId: string, metricName: string, days: number): Promise<VitalsResult> {
  const metric = checkVitalsMetric(metricName);
  if (!Number.isInteger(days) || days < 1 || days > MAX_DAYS) throw badRequest("Invalid days", [{ path: "days", message: `an integer from 1 to ${MAX_DAYS}` }]);
  await fhir.read("Patient", patientId);
  const metrics = VITALS_METRICS[metric];
  const since = Math.floor((Date.now() - days * DAY_MS) / HOUR_MS) * HOUR_MS;
  const keysOf = (statistic: SeriesStatistic) => metrics.map((m) => seriesKey(m, statistic));
  const present = new Set(await seriesPresent(ctx.d1, ctx.orgId, patientId, SERIES_STATISTICS.flatMap(keysOf), since));
  const statistics = SERIES_STATISTICS.filter((s) => keysOf(s).some((k) => present.has(k)));
  const [samples, ...aggregates] = await Promise.all([
    series(ctx, patientId, metric, metrics, since),
    ...statistics.map((s) => series(ctx, patientId, metric, keysOf(s), since)),
  ]);
  return {
    metric,
    unit: metricDefinition(metrics[0])!.unit,
    days,
    ...samples!,
    aggregates: statistics.map((statistic, i) => ({ statistic, ...aggregates[i]! })),
  };
}
