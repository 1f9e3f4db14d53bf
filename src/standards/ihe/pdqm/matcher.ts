// The patient matcher behind PDQm $match (ITI-119) and the patient-match node: a weighted
// comparison in the Fellegi–Sunter manner, each field adding agreement points or taking away
// disagreement points (weights below and in docs/ihe.md). The points give the grade, with
// rules a score alone cannot express (no `certain` when the birth date, the family name or an
// identifier of the same system disagrees), and a score in [0, 1] that is linear in the points
// within two bands (below certain, certain), so one more point always scores higher and every
// certain match outranks every other.
import jaroWinkler from "jaro-winkler";
import { type Demographics, phonetic } from "./normalize";

export type MatchGrade = "certain" | "probable" | "possible" | "certainly-not";

/** Points per field: agreement, partial agreement, disagreement. Only fields both sides have count. */
export const WEIGHTS = {
  identifier: { agree: 8, disagree: -6 }, // same system: equal value / different value
  family: { exact: 4, similar: 3, disagree: -3 }, // similar: same digits, and the same Double Metaphone code or Jaro-Winkler ≥ 0.92
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

/** Scores of the two bands: below certain 0.5 at the probable threshold and 0.05 a point; certain from 0.9, 0.01 a point. */
export const SCORE = { probable: 0.5, perPoint: 0.05, belowCertainMax: 0.89, certain: 0.9, certainPerPoint: 0.01 } as const;

const digitsOf = (s: string) => s.replace(/\D/g, "");

/**
 * Near spellings of one name. Digits count: names whose digits differ are different names
 * (Double Metaphone ignores digits, and Jaro-Winkler forgives a long shared prefix).
 */
const similar = (a: string, b: string, jw: number) => {
  if (a.length === 0 || b.length === 0 || digitsOf(a) !== digitsOf(b)) return false;
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
  return { score: scoreOf(points, grade === "certain"), grade, points, disagreements };
}

/**
 * Linear in the points, so a match that agrees more (an exact field where another is only near)
 * always scores higher; certain matches in their own band above every other, since a match held
 * back from `certain` by a disagreement may have more points. Rounded to 3 decimals, which keeps
 * half a point (the smallest difference the weights make) apart in both bands.
 */
export function scoreOf(points: number, certain: boolean): number {
  const raw = certain
    ? Math.min(1, SCORE.certain + SCORE.certainPerPoint * (points - THRESHOLDS.certain))
    : Math.max(0, Math.min(SCORE.belowCertainMax, SCORE.probable + SCORE.perPoint * (points - THRESHOLDS.probable)));
  return Math.round(raw * 1000) / 1000;
}
