// 270/271 Eligibility, Coverage or Benefit Inquiry and Information, 005010X279A1.
import { hl, type LoopRule, loop, nm1, type SegmentRule, seg, type SetTable } from "../table";
import { bht, DMG, DTP, N3, N4, PER, PRV, REF } from "./common";

const SOURCE = ["2B", "36", "GP", "P5", "PR"];
const RECEIVER = ["1P", "2B", "36", "80", "FA", "GP", "P5", "PR"];
const INS = seg("INS", { els: { 1: ["Y", "N"], 2: "R" } });
const HI = seg("HI", { maxElements: 8, els: { 1: { codes: ["ABK", "BK", "ABF", "BF"], req: true, once: true } } });
const AAA = (max: number) => seg("AAA", { max, els: { 1: ["N", "Y"], 3: "R", 4: "R" } });

const eq = (id: string) => loop(id, "Eligibility or Benefit Inquiry", seg("EQ"), [seg("AMT", { max: 2 }), seg("III"), REF(1), DTP(1)], { max: 99 });
/** 2000C subscriber with 2000D dependent inside: TRN, then the name loop with the set's own children. */
function members(trnMax: number, nameChildren: (suffix: "C" | "D") => (SegmentRule | LoopRule)[]): LoopRule {
  const level = (suffix: "C" | "D", hlLevel: string, codes: string[], more: LoopRule[]) =>
    hl(`2000${suffix}`, suffix === "C" ? "Subscriber Level" : "Dependent Level", hlLevel, [
      seg("TRN", { max: trnMax, els: { 1: ["1", "2"], 2: "R", 3: "R" } }),
      nm1(`2100${suffix}`, suffix === "C" ? "Subscriber Name" : "Dependent Name", codes, nameChildren(suffix), { req: true }),
      ...more,
    ]);
  return level("C", "22", ["IL"], [level("D", "23", ["03"], [])]);
}

const eb = (id: string) =>
  loop(id, "Eligibility or Benefit Information", seg("EB", { els: { 1: "R" } }), [
    seg("HSD", { max: 9 }),
    REF(9),
    DTP(20),
    AAA(9),
    seg("MSG", { max: 10 }),
    loop(`2115${id.slice(-1)}`, "Eligibility or Benefit Additional Information", seg("III"), [], { max: 10 }),
    seg("LS"),
    nm1(`2120${id.slice(-1)}`, "Benefit Related Entity Name", ["13", "1I", "1P", "2B", "36", "73", "FA", "GP", "GW", "I3", "IL", "LR", "P3", "P4", "P5", "PR", "PRP", "SEP", "TTP", "VER", "VN", "VY", "X3", "Y2"], [N3, N4, PER(3), PRV], { max: 23 }),
    seg("LE"),
  ], { max: 99 });

/** The 270/271 levels: information source, receiver, then the members; the 271 adds AAA rejections and EB loops. */
function eligibilityBody(response: boolean): SetTable["body"] {
  const aaa = response ? [AAA(9)] : [];
  return [
    bht("0022", response ? ["06", "11"] : ["01", "13"], { 3: "R" }),
    hl("2000A", "Information Source Level", "20", [
      ...aaa,
      nm1("2100A", "Information Source Name", SOURCE, response ? [PER(3), AAA(9)] : [], { req: true }),
      hl("2000B", "Information Receiver Level", "21", [
        nm1("2100B", "Information Receiver Name", RECEIVER, response ? [REF(9), AAA(9), PRV] : [REF(9), N3, N4, PRV], { req: true }),
        response ? members(3, (x) => [REF(9), N3, N4, AAA(9), PRV, DMG, INS, seg("HI"), DTP(9), seg("MPI"), eb(`2110${x}`)]) : members(2, (x) => [REF(9), N3, N4, PRV, DMG, INS, HI, DTP(2), eq(`2110${x}`)]),
      ], { req: !response }),
    ], { req: true }),
  ];
}

export const X270: SetTable = { id: "270", set: "270", version: "005010X279A1", body: eligibilityBody(false) };
export const X271: SetTable = { id: "271", set: "271", version: "005010X279A1", body: eligibilityBody(true) };
