// The patient search form as FHIR: a search query (name words as given and family, birth date,
// identifier as `value` or `system|value`) and, when it finds nobody, the Patient the PDQm
// matcher ($match, ITI-119) scores the organization's patients against ("did you mean").

export interface PatientQuery {
  name: string;
  birthdate: string;
  identifier: string;
}

const words = (s: string) => s.trim().split(/\s+/).filter(Boolean);

/** Search parameters: one word searches every name part, several are the given names and the family name. */
export function searchParams(q: PatientQuery): Record<string, string> {
  const w = words(q.name);
  const name: Record<string, string> = w.length === 1 ? { name: w[0]! } : w.length > 1 ? { given: w.slice(0, -1).join(" "), family: w[w.length - 1]! } : {};
  return { ...name, ...(q.birthdate ? { birthdate: q.birthdate } : {}), ...(q.identifier.trim() ? { identifier: q.identifier.trim() } : {}) };
}

/** The $match input (a Parameters with the Patient), or undefined when the form holds no demographics. */
export function matchParameters(q: PatientQuery, count = 5): Record<string, unknown> | undefined {
  const w = words(q.name);
  const id = q.identifier.trim();
  const bar = id.indexOf("|");
  const patient: Record<string, unknown> = {
    resourceType: "Patient",
    ...(w.length ? { name: [{ family: w[w.length - 1], ...(w.length > 1 ? { given: w.slice(0, -1) } : {}) }] } : {}),
    ...(q.birthdate ? { birthDate: q.birthdate } : {}),
    ...(id ? { identifier: [bar > 0 ? { system: id.slice(0, bar), value: id.slice(bar + 1) } : { value: id }] } : {}),
  };
  if (Object.keys(patient).length === 1) return undefined;
  return {
    resourceType: "Parameters",
    parameter: [
      { name: "resource", resource: patient },
      { name: "count", valueInteger: count },
    ],
  };
}

export const MATCH_GRADE_URL = "http://hl7.org/fhir/StructureDefinition/match-grade";

/** A $match entry's grade in words. */
export function gradeOf(search: { score?: number; extension?: { url?: string; valueCode?: string }[] } | undefined): string {
  const grade = search?.extension?.find((e) => e.url === MATCH_GRADE_URL)?.valueCode;
  return grade ? `${grade} match` : "match";
}
