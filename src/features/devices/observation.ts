// A normalised reading as a FHIR R4 Observation of the spec's 2.2 shape (wearables.md 2.2):
// status final, category, LOINC or local coding (plus the source's MDC code for bedside
// streams), UCUM quantities, effectiveDateTime or effectivePeriod, the Device by reference
// with its name, and the identifier (platform|device|source record id|metric) ingest is idempotent on.
import type { Resource } from "../fhir";
import { type Coding, DATA_ABSENT_REASON, local, mdc, OBSERVATION_CATEGORY, UCUM } from "./metrics/codes";
import type { NormalisedReading, NormalisedValue } from "./metrics/normalise";
import { seriesKey } from "./store/time-series";

export const READING_IDENTIFIER_SYSTEM = "urn:cdis:device-reading";

const CATEGORY_DISPLAY: Record<string, string> = { "vital-signs": "Vital Signs", activity: "Activity", laboratory: "Laboratory", exam: "Exam" };

/** The If-None-Exist query that finds a reading's Observation (token values escape `\` and `,`). */
export function identifierQuery(identifier: string): string {
  const escaped = identifier.replace(/[\\,]/g, (c) => `\\${c}`);
  return `identifier=${encodeURIComponent(`${READING_IDENTIFIER_SYSTEM}|${escaped}`)}`;
}

function quantity(value: number, ucum: string, display: string | undefined) {
  return { value, unit: display || ucum, system: UCUM, code: ucum };
}

/** valueQuantity, or dataAbsentReason (with the sentinel the source sent as a note). */
function valueElement(v: NormalisedValue, display: string | undefined): Record<string, unknown> {
  if (v.value !== undefined) return { valueQuantity: quantity(v.value, v.ucum, display) };
  return { dataAbsentReason: { coding: [{ system: DATA_ABSENT_REASON, code: v.absent?.reason ?? "unknown" }] } };
}

/** FHIR R4's StatisticsCode (observation-statistics): what a component of an aggregate is. */
const OBSERVATION_STATISTICS = "http://terminology.hl7.org/CodeSystem/observation-statistics";
const STATISTIC_DISPLAY: Record<string, string> = { minimum: "Minimum", maximum: "Maximum", average: "Average", sum: "Sum" };
const statisticCoding = (key: string) => ({ system: OBSERVATION_STATISTICS, code: key, display: STATISTIC_DISPLAY[key] ?? key });

const unitDisplay = (n: NormalisedReading) => (n.definition.ucum === n.ucum ? n.definition.unit : undefined);

function codings(n: NormalisedReading): Coding[] {
  const mdcCode = n.reading.attributes?.mdc_code;
  return mdcCode ? [...n.definition.coding, mdc(mdcCode, n.reading.attributes?.mdc_display ?? mdcCode)] : [...n.definition.coding];
}

export function toObservation(n: NormalisedReading, device: { id: string; name: string }): Resource {
  const r = n.reading;
  const notes = [n.absent?.note, ...(n.components ?? []).map((c) => c.absent?.note)].filter(Boolean);
  const components: Record<string, unknown>[] = (n.components ?? []).map((c) => ({
    code: { coding: [...c.definition.coding] },
    ...valueElement(c, c.ucum === "mm[Hg]" ? "mmHg" : undefined),
  }));
  for (const [key, v] of Object.entries(n.statistics ?? {})) components.push({ code: { coding: [statisticCoding(key)], text: `${r.metric} ${key}` }, valueQuantity: quantity(v, n.ucum, unitDisplay(n)) });
  const trend = r.attributes?.trend;
  if (trend) components.push({ code: { coding: [local("cgm-trend")] }, valueString: trend });
  const samples = r.samples;
  return {
    resourceType: "Observation",
    identifier: [{ system: READING_IDENTIFIER_SYSTEM, value: n.identifier }],
    status: "final",
    category: [{ coding: [{ system: OBSERVATION_CATEGORY, code: n.definition.category, display: CATEGORY_DISPLAY[n.definition.category] }] }],
    code: { coding: codings(n), text: r.metric },
    subject: { reference: `Patient/${r.patientId}` },
    ...(n.end !== undefined ? { effectivePeriod: { start: new Date(n.at).toISOString(), end: new Date(n.end).toISOString() } } : { effectiveDateTime: new Date(n.at).toISOString() }),
    device: { reference: `Device/${device.id}`, display: device.name },
    // A vendor's aggregate says which statistic it is (how the value was derived), so it is read back to its own series.
    ...(n.statistic ? { method: { coding: [statisticCoding(n.statistic)], text: n.statistic } } : {}),
    ...(samples
      ? { valueSampledData: { origin: quantity(samples.origin ?? 0, n.ucum, undefined), period: samples.periodMs, dimensions: 1, data: samples.values.join(" ") } }
      : n.definition.components
        ? n.absent
          ? valueElement(n, undefined)
          : {}
        : valueElement(n, unitDisplay(n))),
    ...(components.length ? { component: components } : {}),
    ...(notes.length ? { note: notes.map((text) => ({ text })) } : {}),
  };
}

const idOf = (ref: unknown) => (typeof ref === "string" ? ref.split("/")[1] : undefined);

/** The reading identifier (`readingIdentifier`) a stored reading's Observation carries. */
export const readingIdentifierOf = (o: Resource): string | undefined =>
  (o.identifier as { system?: string; value?: string }[] | undefined)?.find((i) => i.system === READING_IDENTIFIER_SYSTEM)?.value;

/** Where a stored reading's Observation sits in the time series (patient, series key, time, device), read back from the Observation. */
export function sampleKeyOf(o: Resource): { patientId: string; metric: string; t: number; deviceId: string } | undefined {
  const value = readingIdentifierOf(o);
  const statistic = (o.method as { coding?: Coding[] } | undefined)?.coding?.find((c) => c.system === OBSERVATION_STATISTICS)?.code;
  const metric = value && seriesKey(value.slice(value.lastIndexOf("|") + 1), statistic);
  const patientId = idOf((o.subject as { reference?: string } | undefined)?.reference);
  const deviceId = idOf((o.device as { reference?: string } | undefined)?.reference);
  const when = (o.effectiveDateTime as string | undefined) ?? (o.effectivePeriod as { start?: string } | undefined)?.start;
  const t = when ? Date.parse(when) : Number.NaN;
  return metric && patientId && deviceId && Number.isFinite(t) ? { patientId, metric, t, deviceId } : undefined;
}

/** What a re-sent reading may change: the elements compared to decide whether its Observation gets a new version. */
const CONTENT = ["status", "effectiveDateTime", "effectivePeriod", "valueQuantity", "valueSampledData", "dataAbsentReason", "component", "note"] as const;

/** JSON with object keys sorted, so a stored resource and a fresh one compare by content. */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(",")}]`;
  if (v && typeof v === "object")
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`)
      .join(",")}}`;
  return JSON.stringify(v) ?? "null";
}

/** Whether a reading's Observation says something other than the stored one (value, unit, components, time, status). */
export function contentDiffers(stored: Resource, fresh: Resource): boolean {
  return CONTENT.some((k) => canonical(stored[k]) !== canonical(fresh[k]));
}
