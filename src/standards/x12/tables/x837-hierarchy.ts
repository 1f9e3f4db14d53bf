// The part the 837P and 837I share: submitter and receiver, the billing provider (2000A),
// subscriber (2000B) and patient (2000C) levels around the set's own claim loop (2300).
import { hl, type LoopRule, nm1, req, seg, type SegmentRule } from "../table";
import { bht, DMG, N3, N3R, N4, N4R, PER, PRV, REF } from "./common";

export function body837(claim: LoopRule, opts: { transactionTypes: readonly string[]; subscriberPat: boolean }): (SegmentRule | LoopRule)[] {
  const patient = hl("2000C", "Patient Hierarchical Level", "23", [req("PAT"), nm1("2010CA", "Patient Name", ["QC"], [N3R, N4R, { ...DMG, req: true }, REF(2), PER(1)], { req: true }), claim]);
  return [
    bht("0019", ["00", "18"], { 3: "R", 5: "R", 6: opts.transactionTypes }),
    nm1("1000A", "Submitter Name", ["41"], [{ ...PER(2), req: true }], { req: true }),
    nm1("1000B", "Receiver Name", ["40"], [], { req: true }),
    hl(
      "2000A",
      "Billing Provider Hierarchical Level",
      "20",
      [
        PRV,
        seg("CUR"),
        nm1("2010AA", "Billing Provider Name", ["85"], [N3R, N4R, { ...REF(1), req: true }, REF(2), PER(2)], { req: true }),
        nm1("2010AB", "Pay-to Address Name", ["87"], [N3R, N4R]),
        nm1("2010AC", "Pay-to Plan Name", ["PE"], [N3R, N4R, REF(2)]),
        hl(
          "2000B",
          "Subscriber Hierarchical Level",
          "22",
          [
            req("SBR", { els: { 1: ["A", "B", "C", "D", "E", "F", "G", "H", "P", "S", "T", "U"], 9: "R" } }),
            ...(opts.subscriberPat ? [seg("PAT")] : []),
            nm1("2010BA", "Subscriber Name", ["IL"], [N3, N4, DMG, REF(2), PER(1)], { req: true }),
            nm1("2010BB", "Payer Name", ["PR"], [N3, N4, REF(3)], { req: true }),
            claim,
            patient,
          ],
          { req: true },
        ),
      ],
      { req: true },
    ),
  ];
}
