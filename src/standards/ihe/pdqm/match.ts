// ITI-119 matching over a store: candidates through indexed searches (blocking: each
// identifier, the birth date, the exact family name, each phone or e-mail), never a scan of
// every patient; each candidate scored by the matcher; the answer as PDQm's $match Bundle.
import type { Bundle, BundleEntry, Resource } from "../../../platform/fhir-resource";
import { type MatchGrade, type MatchResult, matchPatient } from "./matcher";
import { type Demographics, demographicsOf } from "./normalize";

export const MATCH_GRADE_URL = "http://hl7.org/fhir/StructureDefinition/match-grade";

/** What candidate retrieval needs of a store: a FHIR search (the store's or the port's). */
export type PatientSearch = (type: string, query: string) => Promise<Bundle>;

/** Candidates per blocking search: enough for the largest plausible block, bounded per request. */
const BLOCK_SIZE = 50;

/** The blocking searches for a query patient: each one indexed. */
export function blockingQueries(patient: Resource): string[] {
  const q: string[] = [];
  for (const i of (patient.identifier as { system?: string; value?: string }[] | undefined) ?? []) {
    if (i.system && i.value) q.push(`identifier=${encodeURIComponent(`${i.system}|${i.value}`)}`);
  }
  if (typeof patient.birthDate === "string" && /^\d{4}-\d{2}-\d{2}$/.test(patient.birthDate)) q.push(`birthdate=${patient.birthDate}`);
  for (const n of (patient.name as { family?: string }[] | undefined) ?? []) if (n.family) q.push(`family:exact=${encodeURIComponent(n.family)}`);
  for (const t of (patient.telecom as { value?: string }[] | undefined) ?? []) if (t.value) q.push(`telecom=${encodeURIComponent(t.value)}`);
  return [...new Set(q)].map((x) => `${x}&_count=${BLOCK_SIZE}`);
}

export interface ScoredPatient {
  fullUrl?: string;
  resource: Resource;
  result: MatchResult;
}

/** Every candidate the blocks find, scored, best first (certainly-not left out). */
export async function findMatches(search: PatientSearch, patient: Resource): Promise<ScoredPatient[]> {
  const query: Demographics = demographicsOf(patient);
  const pages = await Promise.all(blockingQueries(patient).map((q) => search("Patient", q)));
  const seen = new Map<string, BundleEntry>();
  for (const page of pages) for (const e of page.entry ?? []) if (e.resource?.id && e.search?.mode !== "include") seen.set(e.resource.id, e);
  return [...seen.values()]
    .map((e) => ({ fullUrl: e.fullUrl, resource: e.resource!, result: matchPatient(query, demographicsOf(e.resource!)) }))
    .filter((m) => m.result.grade !== "certainly-not")
    .sort((a, b) => b.result.score - a.result.score || b.result.points - a.result.points);
}

export interface MatchOptions {
  onlyCertainMatches?: boolean;
  count?: number;
}

/**
 * The $match answer: at most `count` matches; with onlyCertainMatches, the one certain match or
 * nothing (several certain matches, or none, give an empty Bundle: ITI-119).
 */
export function matchBundle(matches: ScoredPatient[], options: MatchOptions): Bundle {
  let chosen = matches;
  if (options.onlyCertainMatches) {
    const certain = matches.filter((m) => m.result.grade === "certain");
    chosen = certain.length === 1 ? certain : [];
  }
  if (options.count !== undefined) chosen = chosen.slice(0, options.count);
  return {
    resourceType: "Bundle",
    id: crypto.randomUUID(),
    type: "searchset",
    total: chosen.length,
    entry: chosen.map((m) => ({
      fullUrl: m.fullUrl,
      resource: m.resource,
      search: { mode: "match", score: m.result.score, extension: [{ url: MATCH_GRADE_URL, valueCode: m.result.grade satisfies MatchGrade }] } as BundleEntry["search"],
    })),
  };
}
