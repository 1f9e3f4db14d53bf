// The patient matcher behind PDQm $match (ITI-119) and the patient-match node: a weighted
// comparison in the Fellegi–Sunter manner, each field adding agreement points or taking away
// disagreement points (weights below and in docs/ihe.md). The points give the grade, with
// rules a score alone cannot express (no `certain` when the birth date, the family name or an
// identifier of the same system disagrees), and a score in [0, 1] through a logistic curve.
import jaroWinkler from "jaro-winkler";
import { type Demographics, phonetic } from "./normalize";

export type MatchGrade = "certain" | "probable" | "possible" | "certainly-not";

/** Points per field: agreement, partial agreement, disagreement. Only fields both sides have count. */
export const WEIGHTS = {
  identifier: { agree: 8, disagree: -6 }, // same system: equal value / different value
  family: { exact: 4, similar: 3, disagree: -3 }, // similar: same Double Metaphone code or Jaro-Winkler ≥ 0.92
  given: { exact: 3, similar: 2, initial: 1, disagree: -4 }, // similar as family (≥ 0.9); initial: one is the other's initial
  birthDate: { exact: 4, near: 1.5, disagree: -5 }, // near: one part differs, or day and month transposed
  gender: { agree: 1, disagree: -3 },
  telecom: { agree: 2 }, // any phone or e-mail in common (people change numbers: no penalty)
  address: { exact: 2, partial: 1 }, // exact: postal code and line; partial: postal code, or city and line
} as const;

/** Grade thresholds on the points. */
export const THRESHOLDS = { certain: 14, probable: 10, possible: 6 } as const;

export interface MatchResult {
  score: number;
  grade: MatchGrade;
  points: number;
  /** Fields that disagreed (what rules out `certain`). */
  disagreements: string[];
}

const similar = (a: string, b: string, jw: number) => {
  if (a.length === 0 || b.length === 0) return false;
  const [pa, aa] = phonetic(a);
  const [pb, ab] = phonetic(b);
  return pa === pb || (aa !== "" && aa === ab) || jaroWinkler(a, b) >= jw;
};

function compareFamily(q: Demographics, c: Demographics): number | undefined {
  if (!q.families.length || !c.families.length) return undefined;
  if (q.families.some((f) => c.families.includes(f))) return WEIGHTS.family.exact;
  if (q.families.some((f) => c.families.some((g) => similar(f, g, 0.92)))) return WEIGHTS.family.similar;
  return WEIGHTS.family.disagree;
}

function compareGiven(q: Demographics, c: Demographics): number | undefined {
  if (!q.givens.length || !c.givens.length) return undefined;
  const a = q.givens[0]!;
  if (c.givens.includes(a)) return WEIGHTS.given.exact;
  if (c.givens.some((g) => similar(a, g, 0.9))) return WEIGHTS.given.similar;
  if (c.givens.some((g) => (a.length === 1 && g.startsWith(a)) || (g.length === 1 && a.startsWith(g)))) return WEIGHTS.given.initial;
  return WEIGHTS.given.disagree;
}

/** Exact, near (one of year/month/day differs by a typo, or day and month swapped), or different. */
function compareBirthDate(q: Demographics, c: Demographics): number | undefined {
  if (!q.birthDate || !c.birthDate) return undefined;
  if (q.birthDate === c.birthDate) return WEIGHTS.birthDate.exact;
  const [qy, qm, qd] = q.birthDate.split("-");
  const [cy, cm, cd] = c.birthDate.split("-");
  if (!qm || !cm || !qd || !cd) return q.birthDate.slice(0, 4) === c.birthDate.slice(0, 4) ? undefined : WEIGHTS.birthDate.disagree;
  const same = [qy === cy, qm === cm, qd === cd].filter(Boolean).length;
  const swapped = qy === cy && qm === cd && qd === cm;
  const yearTypo = qm === cm && qd === cd && qy !== undefined && cy !== undefined && [...qy].filter((ch, i) => ch !== cy[i]).length === 1;
  return swapped || same === 2 || yearTypo ? WEIGHTS.birthDate.near : WEIGHTS.birthDate.disagree;
}

function compareIdentifiers(q: Demographics, c: Demographics): number | undefined {
  const shared = q.identifiers.filter((i) => c.identifiers.some((j) => j.system === i.system));
  if (!shared.length) return undefined;
  return shared.some((i) => c.identifiers.some((j) => j.system === i.system && j.value === i.value)) ? WEIGHTS.identifier.agree : WEIGHTS.identifier.disagree;
}

function compareAddress(q: Demographics, c: Demographics): number | undefined {
  let best: number | undefined;
  for (const a of q.addresses) {
    for (const b of c.addresses) {
      if (a.postal && a.postal === b.postal && a.line && a.line === b.line) return WEIGHTS.address.exact;
      if ((a.postal && a.postal === b.postal) || (a.city && a.city === b.city && a.line && a.line === b.line)) best = WEIGHTS.address.partial;
    }
  }
  return best;
}

/** How well `candidate` matches the query `q`. */
export function matchPatient(q: Demographics, candidate: Demographics): MatchResult {
  const fields: Record<string, number | undefined> = {
    identifier: compareIdentifiers(q, candidate),
    family: compareFamily(q, candidate),
    given: compareGiven(q, candidate),
    birthDate: compareBirthDate(q, candidate),
    gender: q.gender && candidate.gender ? (q.gender === candidate.gender ? WEIGHTS.gender.agree : WEIGHTS.gender.disagree) : undefined,
    telecom: q.telecoms.some((t) => candidate.telecoms.includes(t)) ? WEIGHTS.telecom.agree : undefined,
    address: compareAddress(q, candidate),
  };
  let points = 0;
  const disagreements: string[] = [];
  for (const [name, p] of Object.entries(fields)) {
    if (p === undefined) continue;
    points += p;
    if (p < 0) disagreements.push(name);
  }
  const blocksCertain = disagreements.some((d) => d === "identifier" || d === "birthDate" || d === "family" || d === "given");
  const grade: MatchGrade =
    points >= THRESHOLDS.certain && !blocksCertain ? "certain" : points >= THRESHOLDS.probable ? "probable" : points >= THRESHOLDS.possible ? "possible" : "certainly-not";
  // Logistic in the points: 0.5 at the probable threshold, about 0.88 at the certain one.
  // A match held back from `certain` by a disagreement never scores above a certain one.
  const logistic = 1 / (1 + Math.exp(-(points - THRESHOLDS.probable) / 2));
  const score = Math.round((grade === "certain" ? logistic : Math.min(logistic, 0.85)) * 1000) / 1000;
  return { score, grade, points, disagreements };
}
