// The compact per-patient time series on the org's shard: one row per numeric sample and hourly
// rollups per device, so a year of 1-minute heart rate (525,600 samples) answers a vitals query
// from 8,760 rollup rows instead of 525,600 Observations. Written by ingest after the FHIR
// transaction commits (idempotent: a retried batch inserts nothing twice and recomputes the same
// rollups; a reading the vendor changed replaces its sample's value); read only by the vitals query.

export const HOUR_MS = 3_600_000;
export const DAY_MS = 24 * HOUR_MS;

/**
 * The series a value goes to: the metric for samples, `<metric>@<statistic>` for a vendor's
 * aggregate (a day's average heart rate at 00:00 and the 00:00 sample are two series, so neither
 * hides the other and the vitals never average an average in with the samples).
 */
export const seriesKey = (metric: string, statistic?: string): string => (statistic ? `${metric}@${statistic}` : metric);

export interface Sample {
  readonly patientId: string;
  /** The series key (`seriesKey`). */
  readonly metric: string;
  readonly t: number;
  readonly deviceId: string;
  readonly value: number;
}

export interface Rollup {
  readonly bucket: number;
  readonly deviceId: string;
  readonly n: number;
  readonly total: number;
  readonly min: number;
  readonly max: number;
}

export interface RawPoint {
  readonly t: number;
  readonly deviceId: string;
  readonly value: number;
}

const INSERT_SAMPLES = `INSERT INTO device_samples (org_id, patient_id, metric, t, device_id, value)
  SELECT ?1, s.value->>'$[0]', s.value->>'$[1]', s.value->>'$[2]', s.value->>'$[3]', s.value->>'$[4]' FROM json_each(?2) AS s WHERE true`;
// A new or re-sent reading keeps the value already in its place (another record of the same
// instant stays as first stored, and a retry changes nothing); an updated reading replaces it.
const KEEP = `${INSERT_SAMPLES} ON CONFLICT DO NOTHING`;
const REPLACE = `${INSERT_SAMPLES} ON CONFLICT DO UPDATE SET value = excluded.value`;

// Recomputed from the samples (not incremented), so replays and late data give the same rollups.
const REFRESH_ROLLUPS = `INSERT INTO device_rollups (org_id, patient_id, metric, bucket, device_id, n, total, min, max)
  SELECT org_id, patient_id, metric, (t / ${HOUR_MS}) * ${HOUR_MS} AS b, device_id, count(*), sum(value), min(value), max(value)
  FROM device_samples WHERE org_id = ?1 AND patient_id = ?2 AND metric = ?3 AND t >= ?4 AND t < ?5
  GROUP BY b, device_id
  ON CONFLICT DO UPDATE SET n = excluded.n, total = excluded.total, min = excluded.min, max = excluded.max`;

/** Stores samples and refreshes the rollups of every hour they touch, in one D1 batch; `replace`: a sample already in a place takes the new value. */
export async function recordSamples(d1: D1Database, orgId: string, samples: readonly Sample[], replace = false): Promise<void> {
  if (!samples.length) return;
  const spans = new Map<string, { patientId: string; metric: string; from: number; to: number }>();
  for (const s of samples) {
    const key = `${s.patientId}\n${s.metric}`;
    const bucket = Math.floor(s.t / HOUR_MS) * HOUR_MS;
    const span = spans.get(key);
    if (!span) spans.set(key, { patientId: s.patientId, metric: s.metric, from: bucket, to: bucket + HOUR_MS });
    else {
      span.from = Math.min(span.from, bucket);
      span.to = Math.max(span.to, bucket + HOUR_MS);
    }
  }
  const rows = JSON.stringify(samples.map((s) => [s.patientId, s.metric, s.t, s.deviceId, s.value]));
  await d1.batch([
    d1.prepare(replace ? REPLACE : KEEP).bind(orgId, rows),
    ...[...spans.values()].map((s) => d1.prepare(REFRESH_ROLLUPS).bind(orgId, s.patientId, s.metric, s.from, s.to)),
  ]);
}

/**
 * The hourly rollups of a window, one source per hour: where two devices report the metric in the
 * same hour, the one ranked first by the org's source priority (`rank`, lower first), then the one
 * with more samples, then the lower device id counts and the others do not, so a watch and a ring
 * never double a patient's steps. The rows come in key order (no sort in SQL); the choice is made here.
 */
export async function chosenRollups(
  d1: D1Database,
  orgId: string,
  patientId: string,
  metrics: readonly string[],
  since: number,
  rank: (deviceId: string) => number = () => 0,
): Promise<Rollup[]> {
  const { results } = await d1
    .prepare(
      `SELECT bucket, device_id AS deviceId, n, total, min, max FROM device_rollups
       WHERE org_id = ?1 AND patient_id = ?2 AND metric IN (SELECT value FROM json_each(?4)) AND bucket >= ?3`,
    )
    .bind(orgId, patientId, since, JSON.stringify(metrics))
    .all<Rollup>();
  // Per hour and device (two metrics, e.g. meter and CGM glucose, add up), then the hour's source.
  const byHour = new Map<number, Map<string, Rollup>>();
  for (const r of results) {
    const devices = byHour.get(r.bucket) ?? new Map<string, Rollup>();
    const seen = devices.get(r.deviceId);
    devices.set(r.deviceId, seen ? { ...seen, n: seen.n + r.n, total: seen.total + r.total, min: Math.min(seen.min, r.min), max: Math.max(seen.max, r.max) } : r);
    byHour.set(r.bucket, devices);
  }
  const chosen: Rollup[] = [];
  for (const devices of byHour.values()) {
    let best: Rollup | undefined;
    for (const r of devices.values()) if (!best || before(r, best, rank)) best = r;
    chosen.push(best!);
  }
  return chosen.sort((a, b) => a.bucket - b.bucket);
}

/** Whether `a` counts rather than `b` for an hour both report. */
function before(a: Rollup, b: Rollup, rank: (deviceId: string) => number): boolean {
  const ra = rank(a.deviceId);
  const rb = rank(b.deviceId);
  if (ra !== rb) return ra < rb;
  return a.n > b.n || (a.n === b.n && a.deviceId < b.deviceId);
}

export interface WindowStats {
  readonly hours: number;
  readonly samples: number;
  readonly devices: number;
}

/** How much a window holds (rollup rows, samples, sources): decides the resolution, and whether one source needs choosing. */
export async function windowStats(d1: D1Database, orgId: string, patientId: string, metrics: readonly string[], since: number): Promise<WindowStats> {
  const row = await d1
    .prepare(
      `SELECT count(DISTINCT bucket) AS hours, coalesce(sum(n), 0) AS samples, count(DISTINCT device_id) AS devices FROM device_rollups
       WHERE org_id = ?1 AND patient_id = ?2 AND metric IN (SELECT value FROM json_each(?4)) AND bucket >= ?3`,
    )
    .bind(orgId, patientId, since, JSON.stringify(metrics))
    .first<WindowStats>();
  return row ?? { hours: 0, samples: 0, devices: 0 };
}

/**
 * Buckets of `size` ms aggregated in SQL: only for a window with one source, where there is no
 * hour's source to choose (a year of one watch: 8,760 rollup rows folded into 365 without
 * leaving SQLite).
 */
export async function singleSourceBuckets(d1: D1Database, orgId: string, patientId: string, metrics: readonly string[], since: number, size: number): Promise<Rollup[]> {
  const { results } = await d1
    .prepare(
      `SELECT (bucket / CAST(?5 AS INTEGER)) * CAST(?5 AS INTEGER) AS bucket, device_id AS deviceId, sum(n) AS n, sum(total) AS total, min(min) AS min, max(max) AS max FROM device_rollups
       WHERE org_id = ?1 AND patient_id = ?2 AND metric IN (SELECT value FROM json_each(?4)) AND bucket >= ?3
       GROUP BY 1, 2 ORDER BY 1`,
    )
    .bind(orgId, patientId, since, JSON.stringify(metrics), size)
    .all<Rollup>();
  return results;
}

/** Which of `metrics` (series keys) hold anything in the window: one read of the rollups' key. */
export async function seriesPresent(d1: D1Database, orgId: string, patientId: string, metrics: readonly string[], since: number): Promise<string[]> {
  const { results } = await d1
    .prepare(`SELECT DISTINCT metric FROM device_rollups WHERE org_id = ?1 AND patient_id = ?2 AND metric IN (SELECT value FROM json_each(?4)) AND bucket >= ?3`)
    .bind(orgId, patientId, since, JSON.stringify(metrics))
    .all<{ metric: string }>();
  return results.map((r) => r.metric);
}

/** The raw samples of a window (the caller keeps those of each hour's chosen device). */
export async function rawSamples(d1: D1Database, orgId: string, patientId: string, metrics: readonly string[], since: number): Promise<RawPoint[]> {
  const { results } = await d1
    .prepare(`SELECT t, device_id AS deviceId, value FROM device_samples WHERE org_id = ?1 AND patient_id = ?2 AND metric IN (SELECT value FROM json_each(?4)) AND t >= ?3 ORDER BY t`)
    .bind(orgId, patientId, since, JSON.stringify(metrics))
    .all<RawPoint>();
  return results;
}

/**
 * Takes samples out of the series (a reading marked entered-in-error): each sample's row goes,
 * and its hour's rollup for that device is rebuilt from what is left (or removed when nothing is).
 */
export async function forgetSamples(d1: D1Database, orgId: string, samples: readonly Omit<Sample, "value">[]): Promise<void> {
  if (!samples.length) return;
  await d1.batch(
    samples.flatMap((s) => {
      const bucket = Math.floor(s.t / HOUR_MS) * HOUR_MS;
      return [
        d1.prepare("DELETE FROM device_samples WHERE org_id = ?1 AND patient_id = ?2 AND metric = ?3 AND t = ?4 AND device_id = ?5").bind(orgId, s.patientId, s.metric, s.t, s.deviceId),
        d1.prepare("DELETE FROM device_rollups WHERE org_id = ?1 AND patient_id = ?2 AND metric = ?3 AND bucket = ?4 AND device_id = ?5").bind(orgId, s.patientId, s.metric, bucket, s.deviceId),
        d1.prepare(REFRESH_ROLLUPS).bind(orgId, s.patientId, s.metric, bucket, bucket + HOUR_MS),
      ];
    }),
  );
}
