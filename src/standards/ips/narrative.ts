// Generated narrative for IPS sections: one table row per entry (what, status, when), built
// from the entries' own coded data so the text says exactly what the entries say.
import type { Resource } from "../../platform/fhir-resource";

type Coded = { text?: string; coding?: { display?: string; code?: string; system?: string }[] };

const XHTML = "http://www.w3.org/1999/xhtml";

const XML_SPECIAL = /[&<>"']/;

export function escapeXml(s: string): string {
  // Most cells hold nothing to escape: a test is far cheaper than a replace with a callback.
  return XML_SPECIAL.test(s) ? s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`) : s;
}

/** A CodeableConcept's words: its text, a coding's display, or a coding's code. */
export function conceptText(value: unknown): string | undefined {
  const c = value as Coded | undefined;
  if (!c || typeof c !== "object") return undefined;
  return c.text ?? c.coding?.find((x) => x.display)?.display ?? c.coding?.find((x) => x.code)?.code;
}

const firstConcept = (value: unknown) => conceptText(Array.isArray(value) ? value[0] : value);

type RefDisplay = (ref: unknown) => string | undefined;

const byRef = (v: unknown, refDisplay: RefDisplay) => refDisplay(v) ?? (v as { display?: string } | undefined)?.display;
const stringField = (v: unknown) => (typeof v === "string" ? v : undefined);

/** Where an entry's words come from, in order: code, vaccine, medication, device, type, name, title, description, category, scope, recommendation. */
const WHAT: readonly ((x: Record<string, unknown>, refDisplay: RefDisplay) => string | undefined)[] = [
  (x) => conceptText(x.code),
  (x) => conceptText(x.vaccineCode),
  (x) => conceptText(x.medicationCodeableConcept),
  (x, d) => byRef(x.medicationReference, d),
  (x, d) => byRef(x.device, d),
  (x) => conceptText(x.type),
  (x) => (x.deviceName as { name?: string }[] | undefined)?.[0]?.name,
  (x) => stringField(x.title),
  (x) => stringField(x.description),
  (x) => firstConcept(x.category),
  (x) => firstConcept(x.scope),
  (x) => firstConcept(x.recommendation && (x.recommendation as { vaccineCode?: unknown[] }[])[0]?.vaccineCode),
];

/** What an entry is about, by type: the first of WHAT that says something (later ones are not computed). */
function what(r: Resource, refDisplay: RefDisplay): string {
  const x = r as Record<string, unknown>;
  for (const source of WHAT) {
    const text = source(x, refDisplay);
    if (text !== undefined && text !== "") return text;
  }
  return r.resourceType;
}

/** The entry's result for observations (a quantity, a concept, a string), empty otherwise. */
function value(r: Resource): string {
  const x = r as Record<string, unknown>;
  const q = x.valueQuantity as { value?: number; unit?: string; code?: string } | undefined;
  if (q) return `${q.value ?? ""} ${q.unit ?? q.code ?? ""}`.trim();
  if (x.valueCodeableConcept) return conceptText(x.valueCodeableConcept) ?? "";
  for (const k of VALUE_FIELDS) if (x[k] !== undefined) return String(x[k]);
  const components = (x.component as Record<string, unknown>[] | undefined) ?? [];
  return components.map((c) => `${conceptText(c.code) ?? ""}: ${value(c as Resource)}`).join("; ");
}

function status(r: Resource): string {
  const x = r as Record<string, unknown>;
  return conceptText(x.clinicalStatus) ?? (typeof x.status === "string" ? x.status : "");
}

const DATE_FIELDS = ["onsetDateTime", "effectiveDateTime", "occurrenceDateTime", "performedDateTime", "authoredOn", "recordedDate", "dateAsserted", "timingDateTime", "issued", "date", "dateTime"];
const PERIOD_FIELDS = ["effectivePeriod", "performedPeriod", "onsetPeriod", "period", "timingPeriod"];
const VALUE_FIELDS = ["valueString", "valueBoolean", "valueInteger", "valueDateTime"];

/** The entry's date: the first clinical date element it has. */
function when(r: Resource): string {
  const x = r as Record<string, unknown>;
  for (const k of DATE_FIELDS) {
    if (typeof x[k] === "string") return x[k] as string;
  }
  for (const k of PERIOD_FIELDS) {
    const p = x[k] as { start?: string; end?: string } | undefined;
    if (p) return [p.start, p.end].filter(Boolean).join(" to ");
  }
  return "";
}

export interface Narrative {
  status: "generated";
  div: string;
}

const wrap = (inner: string): Narrative => ({ status: "generated", div: `<div xmlns="${XHTML}">${inner}</div>` });

const paragraphs = (notes: readonly string[]) => notes.map((n) => `<p>${escapeXml(n)}</p>`).join("");

/** A section's narrative: a table of its entries, or the sentence saying it has none; then its notes (what the record reader left out). */
export function sectionNarrative(entries: Resource[], refDisplay: RefDisplay, emptyText: string, notes: readonly string[] = []): Narrative {
  if (entries.length === 0) return wrap(`<p>${escapeXml(emptyText)}</p>${paragraphs(notes)}`);
  let rows = "";
  for (const r of entries) {
    rows += `<tr><td>${escapeXml(what(r, refDisplay))}</td><td>${escapeXml(value(r))}</td><td>${escapeXml(status(r))}</td><td>${escapeXml(when(r))}</td></tr>`;
  }
  return wrap(`<table><thead><tr><th>Item</th><th>Value</th><th>Status</th><th>Date</th></tr></thead><tbody>${rows}</tbody></table>${paragraphs(notes)}`);
}

/** The Composition's own narrative: whose summary, when, and what the record reader left out. */
export function compositionNarrative(title: string, patientName: string, date: string, notes: readonly string[] = []): Narrative {
  return wrap(`<p>${escapeXml(title)} for ${escapeXml(patientName)}, generated ${escapeXml(date)}.</p>${paragraphs(notes)}`);
}
