// 835 Health Care Claim Payment/Advice, 005010X221A1: ST03 not used, CAS up to 6
// triplets, PLB up to 6 adjustment pairs.
import { loop, req, seg, type SetTable } from "../table";
import { CAS, N3R, N4R, PER, REF } from "./common";

const DTM = (max: number) => seg("DTM", { max, els: { 1: "R", 2: { req: true, date: true } } });

export const X835: SetTable = {
  id: "835",
  set: "835",
  version: "005010X221A1",
  st03Unused: true,
  body: [
    req("BPR", { els: { 1: ["C", "D", "H", "I", "P", "U", "X"], 2: "R", 3: ["C", "D"], 4: ["ACH", "BOP", "CHK", "FWT", "NON"], 16: { req: true, date: true } } }),
    req("TRN", { els: { 1: ["1"], 2: "R", 3: "R" } }),
    seg("CUR"),
    REF(2),
    DTM(1),
    loop("1000A", "Payer Identification", seg("N1", { when: [1, ["PR"]], els: { 1: ["PR"], 2: "R" } }), [N3R, N4R, REF(4), PER(5, ["CX", "BL", "IC"])], { req: true, max: 1 }),
    loop("1000B", "Payee Identification", seg("N1", { when: [1, ["PE"]], els: { 1: ["PE"], 2: "R", 3: "R", 4: "R" } }), [seg("N3"), seg("N4"), REF(3), seg("RDM")], { req: true, max: 1 }),
    loop("2000", "Header Number", seg("LX", { els: { 1: "R" } }), [
      seg("TS3"),
      seg("TS2"),
      loop("2100", "Claim Payment Information", seg("CLP", { els: { 1: "R", 2: ["1", "2", "3", "4", "19", "20", "21", "22", "23", "25"], 3: "R", 4: "R", 6: "R", 7: "R" } }), [
        CAS(99),
        seg("NM1", { req: true, when: [1, ["QC"]], els: { 1: ["QC"], 2: ["1"] } }),
        seg("NM1", { max: 6, when: [1, ["IL", "74", "82", "TT", "PR", "GB"]], els: { 2: ["1", "2"] } }),
        seg("MIA"),
        seg("MOA"),
        REF(5),
        REF(10),
        DTM(4),
        PER(3),
        seg("AMT", { max: 13 }),
        seg("QTY", { max: 14 }),
        loop("2110", "Service Payment Information", seg("SVC", { els: { 1: ["AD", "ER", "HC", "HP", "IV", "N4", "N6", "NU", "UI", "WK"], 2: "R", 3: "R" } }), [
          DTM(2),
          CAS(99),
          REF(8),
          REF(10),
          seg("AMT", { max: 9 }),
          seg("QTY", { max: 8 }),
          seg("LQ", { max: 99 }),
        ], { max: 999 }),
      ]),
    ]),
    seg("PLB", { max: 99, maxElements: 14, els: { 1: "R", 2: "R", 3: "R", 4: "R" } }),
  ],
};
