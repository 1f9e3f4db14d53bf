// Small helpers every mapping uses: numbers that may be sentinels or missing, and instants.
import type { LinkedDevice } from "../platform-adapter";
import type { Reading, ReadingTime } from "../reading";

/** A finite number, else undefined (null, strings, NaN are not values). */
export function numberOr(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}

export interface ReadingInput {
  readonly metric: string;
  readonly value: number | undefined;
  readonly unit: string;
  readonly time: ReadingTime;
  readonly sourceRecordId: string;
  /** Why `value` is missing; defaults to "unknown" when it is. */
  readonly absentReason?: Reading["absentReason"];
  readonly attributes?: Readonly<Record<string, string>>;
}

/** A Reading for `device` from `platform`; a missing value becomes an absent reading, never a number. */
export function reading(platform: string, device: LinkedDevice, input: ReadingInput): Reading {
  const base = {
    patientId: device.patientId,
    deviceId: device.deviceId,
    platform,
    metric: input.metric,
    unit: input.unit,
    time: input.time,
    sourceRecordId: input.sourceRecordId,
    ...(input.attributes && Object.keys(input.attributes).length ? { attributes: input.attributes } : {}),
  };
  return input.value === undefined ? { ...base, absentReason: input.absentReason ?? "unknown" } : { ...base, value: input.value };
}

/** An ISO instant from epoch seconds with the vendor's offset (seconds east of UTC), e.g. 2024-01-15T00:00:00-05:00. */
export function isoWithOffset(epochSeconds: number, offsetSeconds = 0): string {
  const local = new Date((epochSeconds + offsetSeconds) * 1000).toISOString().slice(0, 19);
  if (offsetSeconds === 0) return `${local}Z`;
  const sign = offsetSeconds < 0 ? "-" : "+";
  const abs = Math.abs(offsetSeconds);
  const hh = String(Math.floor(abs / 3600)).padStart(2, "0");
  const mm = String(Math.floor((abs % 3600) / 60)).padStart(2, "0");
  return `${local}${sign}${hh}:${mm}`;
}

/** A local date-time without zone plus its offset in minutes (Polar) → ISO with offset. */
export function localWithOffsetMinutes(local: string, offsetMinutes: number): string {
  const seconds = Date.parse(`${local.slice(0, 19)}Z`) / 1000 - offsetMinutes * 60;
  return isoWithOffset(seconds, offsetMinutes * 60);
}

/** A whole day as an interval: [day 00:00, next day 00:00) in UTC (vendors give no zone for days). */
export function dayInterval(day: string): ReadingTime {
  const start = new Date(`${day}T00:00:00Z`);
  return { start: start.toISOString(), end: new Date(start.getTime() + 86_400_000).toISOString() };
}

/** Readings with a value, plus absent ones, never both for the same metric and record. */
export function compact<T>(items: readonly (T | undefined)[]): T[] {
  return items.filter((x): x is T => x !== undefined);
}
