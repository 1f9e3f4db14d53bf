// The PDQm matcher's scores: an exact agreement always scores above a near one, in every band
// (below certain, certain, and the region a disagreement holds back from certain), digits in names
// count, and every certain match outranks every other.
import { describe, expect, it } from "vitest";
import { matchPatient, SCORE, scoreOf, THRESHOLDS, WEIGHTS } from "../../../../src/standards/ihe/pdqm/matcher";
import { demographicsOf } from "../../../../src/standards/ihe/pdqm/normalize";

type Patient = Record<string, unknown>;
const MRN = "urn:oid:1.2.3.4";
/** A Patient from its parts; `family` and `given` are the first name's. */
const person = ({ family = "Smith", given = "Anna", ...rest }: Patient & { family?: string; given?: string } = {}): Patient => ({
  resourceType: "Patient",
  name: [{ family, given: [given] }],
  birthDate: "1980-02-03",
  gender: "female",
  ...rest,
});
const match = (query: Patient, candidate: Patient) => matchPatient(demographicsOf(query), demographicsOf(candidate));

describe("PDQm match scores", () => {
  it("scores an exact family name above a different one that differs only in its digits", () => {
    const query = person({ family: "Ipscheck73586411" });
    const exact = match(query, person({ family: "Ipscheck73586411" }));
    const other = match(query, person({ family: "Ipscheck73589426" }));
    expect(exact.score).toBeGreaterThan(other.score);
    expect(other.disagreements).toContain("family");
    // A letter typo with the same digits is still a near spelling, below the exact one.
    const typo = match(query, person({ family: "Ipschek73586411" }));
    expect(typo.disagreements).not.toContain("family");
    expect(exact.score).toBeGreaterThan(typo.score);
    expect(typo.score).toBeGreaterThan(other.score);
  });

  // Pairs of candidates that differ in one field only: exact there, near there.
  const pairs: [string, Patient, Patient][] = [
    ["family", { family: "Smith" }, { family: "Smyth" }],
    ["given", { given: "Anna" }, { given: "Ana" }],
    ["birth date", { birthDate: "1980-02-03" }, { birthDate: "1980-03-02" }],
    ["address", { address: [{ line: ["1 Main St"], postalCode: "12345" }] }, { address: [{ line: ["9 Other St"], postalCode: "12345" }] }],
  ];
  const known = { identifier: [{ system: MRN, value: "7" }], telecom: [{ system: "phone", value: "555-0100" }] };
  // Contexts that put the pair in each band: below certain, certain, and held back from certain by
  // the other name disagreeing, with more points than the certain threshold (where a cap tied them).
  const bands: [string, (field: string) => Patient][] = [
    ["below certain", () => ({})],
    ["certain", () => known],
    ["held back from certain", (field) => ({ ...known, ...(field === "family" ? { given: "Zoe" } : { family: "Jones" }) })],
  ];
  for (const [field, exactPart, nearPart] of pairs) {
    for (const [band, context] of bands) {
      it(`scores an exact ${field} above a near one (${band})`, () => {
        const address = [{ line: ["1 Main St"], postalCode: "12345" }];
        const query = person({ ...known, address, ...exactPart });
        const exact = match(query, person({ address, ...context(field), ...exactPart }));
        const near = match(query, person({ address, ...context(field), ...nearPart }));
        if (band === "certain") expect(exact.grade).toBe("certain");
        if (band === "held back from certain") expect([exact.grade, exact.points > THRESHOLDS.certain]).toEqual(["probable", true]);
        expect(exact.points).toBeGreaterThan(near.points);
        expect(exact.score).toBeGreaterThan(near.score);
      });
    }
  }

  it("keeps every certain match above every other, and half a point apart in both bands", () => {
    const agree = Object.values(WEIGHTS).map((w) => Math.max(...Object.values(w)));
    const maxPoints = agree.reduce((a, b) => a + b, 0);
    // Only a disagreement on a blocking field keeps a match with enough points below certain.
    const blocking = [WEIGHTS.identifier, WEIGHTS.family, WEIGHTS.given, WEIGHTS.birthDate].map((w) => maxPoints - Math.max(...Object.values(w)) + w.disagree);
    const maxBelowCertain = Math.max(THRESHOLDS.certain - 0.5, ...blocking);
    expect(scoreOf(maxBelowCertain, false)).toBeLessThan(SCORE.belowCertainMax);
    expect(scoreOf(maxBelowCertain, false)).toBeLessThan(scoreOf(THRESHOLDS.certain, true));
    expect(SCORE.certain + SCORE.certainPerPoint * (maxPoints - THRESHOLDS.certain)).toBeLessThanOrEqual(1);
    for (let p = THRESHOLDS.possible; p < maxBelowCertain; p += 0.5) expect(scoreOf(p + 0.5, false)).toBeGreaterThan(scoreOf(p, false));
    for (let p = THRESHOLDS.certain; p < maxPoints; p += 0.5) expect(scoreOf(p + 0.5, true)).toBeGreaterThan(scoreOf(p, true));
    expect(scoreOf(THRESHOLDS.probable, false)).toBe(0.5);
  });
});
