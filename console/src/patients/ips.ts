// Reading an IPS document (Patient/$summary) as a clinician does: each section's entries with
// what they are, their value with its unit, status and date; repeated measurements of one kind
// (a wearable's heart rate every few minutes) folded into one row with the latest value, how many
// readings there were, over what span and their range. Pure, so it is unit-tested.

export interface Coding {
  system?: string;
  code?: string;
  display?: string;
}
export interface Concept {
  text?: string;
  coding?: Coding[];
}
interface Quantity {
  value?: number;
  unit?: string;
  code?: string;
}
export type IpsResource = Record<string, unknown> & { resourceType: string; id?: string };

export interface IpsSection {
  title?: string;
  entry?: { reference?: string }[];
  emptyReason?: Concept;
}

/** One line of a section: one entry, or a run of measurements of one kind. */
export interface SummaryRow {
  key: string;
  item: string;
  value: string;
  status: string;
  /** The (latest) entry's clinical date, ISO as written. */
  date?: string;
  /** Measurements of the same kind folded into this row, newest first (only when more than one). */
  series?: { value: string; date?: string; numeric?: number }[];
}

/**
 * A concept's words. A coding's display comes before `text` here: the device ingest writes the
 * metric's identifier as text ("heart_rate") beside LOINC's display ("Heart rate").
 */
export function conceptLabel(c: unknown): string | undefined {
  const concept = c as Concept | undefined;
  if (!concept || typeof concept !== "object") return undefined;
  const text = concept.text;
  const display = concept.coding?.find((x) => x.display)?.display;
  if (text && display && /^[a-z0-9_]+$/.test(text)) return display;
  return text ?? display ?? concept.coding?.find((x) => x.code)?.code;
}

const firstConcept = (v: unknown) => conceptLabel(Array.isArray(v) ? v[0] : v);

const formatNumber = (n: number) => (Number.isInteger(n) ? String(n) : String(Math.round(n * 100) / 100));

export function quantityText(q: unknown): string {
  const x = q as Quantity | undefined;
  if (!x || x.value === undefined) return "";
  const unit = x.unit ?? x.code ?? "";
  return `${formatNumber(x.value)}${unit ? ` ${unit}` : ""}`;
}

/** The resource's value: a quantity with its unit, a concept, a string, components ("Systolic 128 mmHg, Diastolic 82 mmHg"). */
export function valueText(r: Record<string, unknown>): string {
  if (r.valueQuantity) return quantityText(r.valueQuantity);
  if (r.valueCodeableConcept) return conceptLabel(r.valueCodeableConcept) ?? "";
  for (const k of ["valueString", "valueInteger", "valueBoolean", "valueDateTime"]) if (r[k] !== undefined) return String(r[k]);
  const sampled = r.valueSampledData as { data?: string } | undefined;
  if (sampled?.data) return `${sampled.data.trim().split(/\s+/).length} samples`;
  const components = (r.component as Record<string, unknown>[] | undefined) ?? [];
  if (components.length) return components.map((c) => `${conceptLabel(c.code) ?? ""} ${valueText(c)}`.trim()).join(", ");
  const absent = conceptLabel(r.dataAbsentReason);
  return absent ? `no value (${absent})` : "";
}

const DATE_FIELDS = ["effectiveDateTime", "onsetDateTime", "occurrenceDateTime", "performedDateTime", "authoredOn", "recordedDate", "dateAsserted", "recordedOn", "date", "issued"];
const PERIOD_FIELDS = ["effectivePeriod", "performedPeriod", "onsetPeriod", "timingPeriod", "period"];

/** The resource's clinical date (a period's start). */
export function dateOf(r: Record<string, unknown>): string | undefined {
  for (const k of DATE_FIELDS) if (typeof r[k] === "string") return r[k] as string;
  for (const k of PERIOD_FIELDS) {
    const p = r[k] as { start?: string; end?: string } | undefined;
    if (p?.start ?? p?.end) return p.start ?? p.end;
  }
  return undefined;
}

/** A date as written for a date, local date and time for an instant. */
export function formatDate(iso: string | undefined): string {
  if (!iso) return "—";
  if (!iso.includes("T")) return iso;
  const t = new Date(iso);
  return Number.isNaN(t.getTime()) ? iso : t.toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
}

type Resolve = (reference: unknown) => IpsResource | undefined;

/** What an entry is: its code, vaccine, medication (resolved in the document), device, title or description. */
export function itemOf(r: IpsResource, resolve: Resolve): string {
  const medication = resolve(r.medicationReference);
  const device = resolve(r.device);
  return (
    conceptLabel(r.code) ??
    conceptLabel(r.vaccineCode) ??
    conceptLabel(r.medicationCodeableConcept) ??
    (medication ? conceptLabel(medication.code) : undefined) ??
    (r.medicationReference as { display?: string } | undefined)?.display ??
    (device ? (device.deviceName as { name?: string }[] | undefined)?.[0]?.name : undefined) ??
    (typeof r.title === "string" ? r.title : undefined) ??
    (typeof r.description === "string" ? r.description : undefined) ??
    firstConcept(r.category) ??
    `${r.resourceType}${r.id ? `/${r.id}` : ""}`
  );
}

export function statusOf(r: IpsResource): string {
  return conceptLabel(r.clinicalStatus) ?? (typeof r.status === "string" ? r.status : "");
}

/** The kind a measurement is of: its codes and, for a vendor's aggregate, the statistic (so averages never mix with samples). */
function kindOf(r: IpsResource): string | undefined {
  if (r.resourceType !== "Observation") return undefined;
  const codes = ((r.code as Concept | undefined)?.coding ?? []).map((c) => `${c.system}|${c.code}`).sort();
  if (!codes.length) return undefined;
  return `${codes.join(",")}#${conceptLabel(r.method) ?? ""}`;
}

const numericOf = (r: IpsResource) => (r.valueQuantity as Quantity | undefined)?.value;

/** A section's rows, in the section's order, each run of measurements of one kind folded into its latest. */
export function sectionRows(section: IpsSection, resolve: Resolve): SummaryRow[] {
  const rows: SummaryRow[] = [];
  const byKind = new Map<string, { row: SummaryRow; members: IpsResource[] }>();
  for (const e of section.entry ?? []) {
    const r = resolve(e);
    if (!r) {
      rows.push({ key: e.reference ?? String(rows.length), item: e.reference ?? "(missing entry)", value: "", status: "" });
      continue;
    }
    const kind = kindOf(r);
    const known = kind ? byKind.get(kind) : undefined;
    if (known) {
      known.members.push(r);
      continue;
    }
    const row: SummaryRow = { key: e.reference ?? kind ?? String(rows.length), item: itemOf(r, resolve), value: "", status: "" };
    rows.push(row);
    if (kind) byKind.set(kind, { row, members: [r] });
    else Object.assign(row, { value: valueText(r), status: statusOf(r), date: dateOf(r) });
  }
  for (const { row, members } of byKind.values()) {
    const sorted = members.map((r) => ({ r, date: dateOf(r) })).sort((a, b) => (b.date ?? "").localeCompare(a.date ?? ""));
    const latest = sorted[0]!.r;
    Object.assign(row, { value: valueText(latest), status: statusOf(latest), date: sorted[0]!.date });
    if (sorted.length > 1) row.series = sorted.map(({ r, date }) => ({ value: valueText(r), date, numeric: numericOf(r) }));
  }
  return rows;
}

/** "56 readings, 1 Dec 2026 to 3 Dec 2026, 58 to 95 /min": what a folded row stands for. */
export function seriesSummary(row: SummaryRow): string {
  const series = row.series ?? [];
  const dates = series.map((s) => s.date).filter((d): d is string => d !== undefined);
  const span = dates.length ? `, ${formatDate(dates[dates.length - 1])} to ${formatDate(dates[0])}` : "";
  const numbers = series.map((s) => s.numeric).filter((n): n is number => n !== undefined);
  const unit = row.value.replace(/^[-\d.]+\s*/, "");
  const range = numbers.length > 1 ? `, ranging ${formatNumber(Math.min(...numbers))} to ${formatNumber(Math.max(...numbers))}${unit ? ` ${unit}` : ""}` : "";
  return `${series.length} readings${span}${range}`;
}
