// One reading, checked and normalised: the metric known, the unit converted to the metric's
// UCUM unit, the time read, sentinels and garbage turned into an absent value with a reason
// (never a number), components (blood pressure) and waveforms (ECG) each checked the same way.
import type { FieldError } from "../../../platform/errors";
import { type Reading, type ReadingComponent, readingIdentifier } from "../reading";
import type { ComponentDefinition, MetricDefinition } from "./table";
import { metricDefinition } from "./table";
import { convert, ucumCode } from "./units";

export type AbsentReason = NonNullable<Reading["absentReason"]>;

export interface NormalisedValue {
  /** In the canonical UCUM unit; absent when the source's value was missing, a sentinel or out of range. */
  readonly value?: number;
  readonly ucum: string;
  readonly absent?: { readonly reason: AbsentReason; readonly note?: string };
}

export interface NormalisedComponent extends NormalisedValue {
  readonly definition: ComponentDefinition;
}

export interface NormalisedReading extends NormalisedValue {
  readonly reading: Reading;
  /** The window's minimum / maximum (Reading.statistics), converted like the value; out-of-range ones dropped. */
  readonly statistics?: { readonly minimum?: number; readonly maximum?: number };
  readonly definition: MetricDefinition;
  readonly components?: readonly NormalisedComponent[];
  /** The sample's instant (the period's start for an interval aggregate), epoch ms. */
  readonly at: number;
  readonly end?: number;
  /** platform|deviceId|sourceRecordId|metric: the Observation identifier that makes ingest idempotent (`readingIdentifier`). */
  readonly identifier: string;
  /** A vendor's aggregate of the metric (a day's average heart rate, the night's lowest body battery): its own series, never mixed with the samples. */
  readonly statistic?: SeriesStatistic;
}

/** The statistics an aggregate reading may be (FHIR's observation-statistics codes). */
export const SERIES_STATISTICS = ["average", "minimum", "maximum", "sum"] as const;
export type SeriesStatistic = (typeof SERIES_STATISTICS)[number];

/**
 * The statistic a reading is, from `attributes.statistic`: a vendor's summary (daily average, a
 * workout's average, the day's highest). A roll-up window the organization chose as the data type's
 * resolution (`attributes.resolution`, Google Health) stands for the samples and is not one.
 */
export function aggregateStatistic(reading: Reading): SeriesStatistic | undefined {
  const statistic = reading.attributes?.statistic;
  if (reading.attributes?.resolution || !statistic) return undefined;
  return (SERIES_STATISTICS as readonly string[]).includes(statistic) ? (statistic as SeriesStatistic) : undefined;
}

export type Normalised = { ok: true; reading: NormalisedReading } | { ok: false; errors: FieldError[] };

const ISO_WITH_OFFSET = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;

function instant(value: string, path: string, errors: FieldError[]): number {
  const ms = ISO_WITH_OFFSET.test(value) ? Date.parse(value) : Number.NaN;
  if (Number.isNaN(ms)) errors.push({ path, message: "must be an ISO 8601 date-time with a time zone offset" });
  return ms;
}

/** A value in `unit` to the canonical unit, or an absent value with the reason it is not one. */
function normaliseValue(
  value: number | undefined,
  unit: string,
  target: { ucum?: string; range?: readonly [number, number]; molecularWeight?: number },
  explicit: AbsentReason | undefined,
  path: string,
  errors: FieldError[],
): NormalisedValue {
  const from = ucumCode(unit);
  if (!from) {
    errors.push({ path: `${path}unit`, message: `"${unit}" is not a UCUM unit or a known spelling of one` });
    return { ucum: unit };
  }
  const to = target.ucum ?? from;
  if (value === undefined || value === null) return { ucum: to, absent: { reason: explicit ?? "unknown" } };
  if (typeof value !== "number" || !Number.isFinite(value)) {
    errors.push({ path: `${path}value`, message: "must be a finite number" });
    return { ucum: to };
  }
  const converted = convert(value, from, to, target.molecularWeight);
  if (!converted.ok) {
    errors.push({ path: `${path}unit`, message: converted.message });
    return { ucum: to };
  }
  const [min, max] = target.range ?? [Number.NEGATIVE_INFINITY, Number.POSITIVE_INFINITY];
  if (converted.value < min || converted.value > max) {
    // Sentinels (Garmin stress -1…-5) and garbage: kept as the fact that the source sent something, never as a value.
    return { ucum: to, absent: { reason: "error", note: `source sent ${value} ${unit}, outside ${min}–${max} ${to}` } };
  }
  return { ucum: to, value: converted.value };
}

function normaliseComponents(definition: MetricDefinition, components: readonly ReadingComponent[] | undefined, reason: AbsentReason | undefined, errors: FieldError[]): NormalisedComponent[] | undefined {
  if (!definition.components) return undefined;
  if (!components?.length) {
    if (!reason) errors.push({ path: "components", message: `${definition.metric} needs components (${definition.components.map((c) => c.metric).join(", ")})` });
    return [];
  }
  return components.flatMap((component, i) => {
    const componentDefinition = definition.components?.find((c) => c.metric === component.metric);
    if (!componentDefinition) {
      errors.push({ path: `components[${i}].metric`, message: `unknown component; allowed: ${definition.components?.map((c) => c.metric).join(", ")}` });
      return [];
    }
    const normalised = normaliseValue(component.value, component.unit, componentDefinition, reason, `components[${i}].`, errors);
    return [{ ...normalised, definition: componentDefinition }];
  });
}

function checkSamples(reading: Reading, errors: FieldError[]): void {
  const samples = reading.samples;
  if (!samples) {
    errors.push({ path: "samples", message: `${reading.metric} is a waveform: it needs samples {periodMs, values}` });
    return;
  }
  if (!(samples.periodMs > 0)) errors.push({ path: "samples.periodMs", message: "must be a positive number" });
  if (!Array.isArray(samples.values) || samples.values.length === 0 || samples.values.some((v) => typeof v !== "number" || !Number.isFinite(v))) {
    errors.push({ path: "samples.values", message: "must be a non-empty array of finite numbers" });
  }
}

/** Minimum and maximum in the value's canonical unit; a sentinel among them is left out, not stored. */
function normaliseStatistics(reading: Reading, definition: MetricDefinition, errors: FieldError[]): { minimum?: number; maximum?: number } {
  const out: { minimum?: number; maximum?: number } = {};
  for (const key of ["minimum", "maximum"] as const) {
    const raw = reading.statistics?.[key];
    if (raw === undefined) continue;
    const v = normaliseValue(raw, reading.unit, definition, undefined, `statistics.${key}.`, errors);
    if (v.value !== undefined) out[key] = v.value;
  }
  return out;
}

export function normaliseReading(reading: Reading): Normalised {
  const errors: FieldError[] = [];
  const definition = metricDefinition(reading.metric);
  if (!definition) return { ok: false, errors: [{ path: "metric", message: `unknown metric "${reading.metric}"` }] };
  for (const field of ["patientId", "deviceId", "platform", "sourceRecordId"] as const) {
    if (typeof reading[field] !== "string" || reading[field].length === 0) errors.push({ path: field, message: "is required" });
  }
  const time = reading.time as Partial<{ at: string; start: string; end: string }> | undefined;
  let at = Number.NaN;
  let end: number | undefined;
  if (time && typeof time.at === "string") at = instant(time.at, "time.at", errors);
  else if (time && typeof time.start === "string" && typeof time.end === "string") {
    at = instant(time.start, "time.start", errors);
    end = instant(time.end, "time.end", errors);
    if (end < at) errors.push({ path: "time.end", message: "is before time.start" });
  } else errors.push({ path: "time", message: "needs {at} or {start, end}" });

  let value: NormalisedValue = { ucum: definition.ucum ?? reading.unit };
  let components: NormalisedComponent[] | undefined;
  if (definition.sampled) {
    checkSamples(reading, errors);
    const sampleUnit = ucumCode(reading.unit);
    if (!sampleUnit) errors.push({ path: "unit", message: `"${reading.unit}" is not a UCUM unit` });
    value = { ucum: sampleUnit ?? reading.unit };
  } else if (definition.components) {
    components = normaliseComponents(definition, reading.components, reading.absentReason, errors) ?? [];
    if (components.length === 0 || components.every((c) => c.absent)) value = { ...value, absent: { reason: reading.absentReason ?? components[0]?.absent?.reason ?? "unknown" } };
  } else {
    value = normaliseValue(reading.absentReason ? undefined : reading.value, reading.unit, definition, reading.absentReason, "", errors);
  }
  const statistics = value.value !== undefined && reading.statistics ? normaliseStatistics(reading, definition, errors) : undefined;
  if (errors.length) return { ok: false, errors };
  const statistic = aggregateStatistic(reading);
  return {
    ok: true,
    reading: {
      ...value,
      reading,
      definition,
      ...(components ? { components } : {}),
      ...(statistics && Object.keys(statistics).length ? { statistics } : {}),
      at,
      ...(end !== undefined ? { end } : {}),
      identifier: readingIdentifier(reading),
      ...(statistic ? { statistic } : {}),
    },
  };
}
