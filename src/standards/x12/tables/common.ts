// Pieces several tables share: the BHT with its fixed structure code, address and
// demographic segments, and element rules that recur.

import { req, type SegmentRule, seg } from "../table";

/** BHT with BHT01 (hierarchical structure code) and BHT02 (purpose) fixed by the TR3. */
export const bht = (structure: string, purposes: readonly string[], more: SegmentRule["els"] = {}): SegmentRule => req("BHT", { els: { 1: [structure], 2: purposes, 4: { req: true, date: true }, ...more } });

export const N3 = seg("N3", { els: { 1: "R" } });
export const N4 = seg("N4", { els: { 1: "R" } });
export const N3R = req("N3", { els: { 1: "R" } });
export const N4R = req("N4", { els: { 1: "R" } });
export const PER = (max = 2, functions: readonly string[] = ["IC"]) => seg("PER", { max, els: { 1: functions } });
export const REF = (max = 1) => seg("REF", { max, els: { 1: "R", 2: "R" } });
export const DMG = seg("DMG", { els: { 1: ["D8"], 2: "R" } });
export const DTP = (max = 1) => seg("DTP", { max, els: { 1: "R", 2: ["D8", "RD8", "DT", "TM"], 3: "R" } });
export const PRV = seg("PRV", { els: { 1: "R", 2: ["PXC"] } });
/** CAS: group code and up to 6 reason/amount/quantity triplets. */
export const CAS = (max: number) => seg("CAS", { max, maxElements: 19, els: { 1: ["CO", "OA", "PI", "PR"], 2: "R", 3: "R" } });
/** An HI segment for the given qualifiers: HI01 required, HI02..HI12 separate elements (never repetitions). */
export const hi = (first: readonly string[], others: readonly string[], more: Omit<SegmentRule, "seg" | "els" | "when"> = {}): SegmentRule => {
  const els: Record<number, { codes: readonly string[]; req?: boolean; once: boolean }> = { 1: { codes: first, req: true, once: true } };
  for (let n = 2; n <= 12; n++) els[n] = { codes: others, once: true };
  return seg("HI", { ...more, when: [1, first], maxElements: 12, els });
};
