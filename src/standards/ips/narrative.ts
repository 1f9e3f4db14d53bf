// Generated narrative for IPS sections: one table row per entry (what, status, when), built
// from the entries' own coded data so the text says exactly what the entries say.
import type { Resource } from "../../features/fhir/port";

type Coded = { text?: string; coding?: { display?: string; code?: string; system?: string }[] };

const XHTML = "http://www.w3.org/1999/xhtml";

export function escapeXml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** A CodeableConcept's words: its text, a coding's display, or a coding's code. */
export function conceptText(value: unknown): string | undefined {
  const c = value as Coded | undefined;
  if (!c || typeof c !== "object") return undefined;
  return c.text ?? c.coding?.find((x) => x.display)?.display ?? c.coding?.find((x) => x.code)?.code;
}

const firstConcept = (value: unknown) => conceptText(Array.isArray(value) ? value[0] : value);

/** What an entry is about, by type: its code, vaccine, medication, device or description. */
function what(r: Resource, refDisplay: (ref: unknown) => string | undefined): string {
  const x = r as Record<string, unknown>;
  const byRef = (v: unknown) => refDisplay(v) ?? (v as { display?: string } | undefined)?.display;
  const candidates = [
    conceptText(x.code),
    conceptText(x.vaccineCode),
    conceptText(x.medicationCodeableConcept),
    byRef(x.medicationReference),
    byRef(x.device),
    conceptText(x.type),
    (x.deviceName as { name?: string }[] | undefined)?.[0]?.name,
    typeof x.title === "string" ? x.title : undefined,
    typeof x.description === "string" ? x.description : undefined,
    firstConcept(x.category),
    firstConcept(x.scope),
    firstConcept(x.recommendation && (x.recommendation as { vaccineCode?: unknown[] }[])[0]?.vaccineCode),
  ];
  return candidates.find((c) => c !== undefined && c !== "") ?? r.resourceType;
}

/** The entry's result for observations (a quantity, a concept, a string), empty otherwise. */
function value(r: Resource): string {
  const x = r as Record<string, unknown>;
  const q = x.valueQuantity as { value?: number; unit?: string; code?: string } | undefined;
  if (q) return `${q.value ?? ""} ${q.unit ?? q.code ?? ""}`.trim();
  if (x.valueCodeableConcept) return conceptText(x.valueCodeableConcept) ?? "";
  for (const k of ["valueString", "valueBoolean", "valueInteger", "valueDateTime"]) if (x[k] !== undefined) return String(x[k]);
  const components = (x.component as Record<string, unknown>[] | undefined) ?? [];
  return components.map((c) => `${conceptText(c.code) ?? ""}: ${value(c as Resource)}`).join("; ");
}

function status(r: Resource): string {
  const x = r as Record<string, unknown>;
  return conceptText(x.clinicalStatus) ?? (typeof x.status === "string" ? x.status : "");
}

/** The entry's date: the first clinical date element it has. */
function when(r: Resource): string {
  const x = r as Record<string, unknown>;
  for (const k of ["onsetDateTime", "effectiveDateTime", "occurrenceDateTime", "performedDateTime", "authoredOn", "recordedDate", "dateAsserted", "timingDateTime", "issued", "date", "dateTime"]) {
    if (typeof x[k] === "string") return x[k] as string;
  }
  for (const k of ["effectivePeriod", "performedPeriod", "onsetPeriod", "period", "timingPeriod"]) {
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

/** A section's narrative: a table of its entries, or the sentence saying it has none. */
export function sectionNarrative(entries: Resource[], refDisplay: (ref: unknown) => string | undefined, emptyText: string): Narrative {
  if (entries.length === 0) return wrap(`<p>${escapeXml(emptyText)}</p>`);
  const rows = entries.map((r) => {
    const cells = [what(r, refDisplay), value(r), status(r), when(r)].map((c) => `<td>${escapeXml(c)}</td>`).join("");
    return `<tr>${cells}</tr>`;
  });
  return wrap(`<table><thead><tr><th>Item</th><th>Value</th><th>Status</th><th>Date</th></tr></thead><tbody>${rows.join("")}</tbody></table>`);
}

/** The Composition's own narrative: whose summary, when. */
export function compositionNarrative(title: string, patientName: string, date: string): Narrative {
  return wrap(`<p>${escapeXml(title)} for ${escapeXml(patientName)}, generated ${escapeXml(date)}.</p>`);
}
