// A patient's timeline (spec 6.2): encounters, observations, device readings, conditions,
// medications, documents and alerts, newest first. Each event type is a FHIR search sorted by
// its date; a page merges the first offset+limit of each and cuts the page out, so paging is
// exact while offset+limit stays within one search page (MAX_WINDOW).
import type { OrgContext } from "../../../platform/org-context";
import { badRequest } from "../../../platform/errors";
import type { Resource } from "../../fhir";
import type { Principal } from "../../tenancy";
import { requirePatient } from "./links";

interface Source {
  readonly type: string;
  readonly resourceType: string;
  readonly query: string;
  readonly date: (r: Resource) => string | undefined;
}

// biome-ignore lint/suspicious/noExplicitAny: FHIR JSON read by path
type R = Record<string, any>;
const at = (r: Resource, ...paths: string[]): string | undefined => {
  for (const path of paths) {
    const v = path.split(".").reduce<unknown>((o, k) => (o && typeof o === "object" ? (o as R)[k] : undefined), r);
    if (typeof v === "string") return v;
  }
  return undefined;
};

const SOURCES: readonly Source[] = [
  { type: "Device reading", resourceType: "Observation", query: "device:missing=false&_sort=-date", date: (r) => at(r, "effectiveDateTime", "effectivePeriod.start", "issued") },
  { type: "Observation", resourceType: "Observation", query: "device:missing=true&_sort=-date", date: (r) => at(r, "effectiveDateTime", "effectivePeriod.start", "issued") },
  { type: "Encounter", resourceType: "Encounter", query: "_sort=-date", date: (r) => at(r, "period.start") },
  { type: "Condition", resourceType: "Condition", query: "_sort=-recorded-date", date: (r) => at(r, "recordedDate", "onsetDateTime") },
  { type: "Medication", resourceType: "MedicationRequest", query: "_sort=-authoredon", date: (r) => at(r, "authoredOn") },
  { type: "Medication", resourceType: "MedicationAdministration", query: "_sort=-effective-time", date: (r) => at(r, "effectiveDateTime", "effectivePeriod.start") },
  { type: "Document", resourceType: "DocumentReference", query: "_sort=-date", date: (r) => at(r, "date") },
  { type: "Alert", resourceType: "DetectedIssue", query: "_sort=-identified", date: (r) => at(r, "identifiedDateTime", "identifiedPeriod.start") },
  { type: "Alert", resourceType: "Flag", query: "_sort=-date", date: (r) => at(r, "period.start") },
];

export const TIMELINE_TYPES = [...new Set(SOURCES.map((s) => s.type))];
export const MAX_WINDOW = 1000;

export interface TimelineEvent {
  type: string;
  timestamp: string | null;
  resource_type: string;
  resource_id: string;
  title: string;
  resource: Resource;
}

function titleOf(r: Resource): string {
  const code = (r.code ?? r.medicationCodeableConcept ?? r.type) as R | undefined;
  const text = code?.text ?? code?.coding?.[0]?.display ?? code?.coding?.[0]?.code ?? r.resourceType;
  const q = r.valueQuantity as R | undefined;
  return q ? `${text}: ${q.value} ${q.unit ?? q.code ?? ""}`.trim() : String(text);
}

/** Offsets differ between sources: compare instants, undated events last. */
const instant = (t: string | null) => (t ? Date.parse(t) || 0 : 0);

export async function patientTimeline(ctx: OrgContext, principal: Principal, patientId: string, types: string[] | undefined, limit: number, offset: number) {
  for (const [i, type] of (types ?? []).entries()) {
    if (!TIMELINE_TYPES.includes(type)) throw badRequest("Unknown event type", [{ path: `type[${i}]`, message: `allowed: ${TIMELINE_TYPES.join(", ")}` }]);
  }
  if (offset + limit > MAX_WINDOW) throw badRequest("Page out of range", [{ path: "offset", message: `offset + limit may be at most ${MAX_WINDOW}` }]);
  await requirePatient(ctx, principal, patientId);
  const fhir = ctx.fhir(principal);
  const sources = SOURCES.filter((s) => !types?.length || types.includes(s.type));
  const pages = await Promise.all(
    sources.map(async (s) => {
      const bundle = await fhir.search(s.resourceType, `patient=${encodeURIComponent(patientId)}&${s.query}&_count=${offset + limit}&_total=accurate`);
      const events = (bundle.entry ?? []).flatMap((e) => (e.resource ? [{ type: s.type, timestamp: s.date(e.resource) ?? null, resource_type: s.resourceType, resource_id: e.resource.id as string, title: titleOf(e.resource), resource: e.resource }] : []));
      return { events, total: bundle.total ?? events.length };
    }),
  );
  const events = pages.flatMap((p) => p.events).sort((a, b) => instant(b.timestamp) - instant(a.timestamp) || a.resource_id.localeCompare(b.resource_id));
  return { events: events.slice(offset, offset + limit), total: pages.reduce((a, p) => a + p.total, 0) };
}
