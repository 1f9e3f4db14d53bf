// 276/277 Claim Status Request and Response, 005010X212, and the 277CA Claim
// Acknowledgment, 005010X214 (ST01 277, BHT01 0085, patient level HL03 "PT").
import { hl, loop, nm1, seg, type SetTable } from "../table";
import { bht, DMG, DTP, PER, REF } from "./common";

const TRN = (required = true) => seg("TRN", { req: required, els: { 1: ["1", "2"], 2: "R" } });
const STC = (required: boolean) => seg("STC", { req: required, max: 99, els: { 1: "R" } });
const svcReq = (id: string) => loop(id, "Service Line Information", seg("SVC", { els: { 1: "R", 2: "R" } }), [REF(1), DTP(1)], { max: 99 });
const svcRes = (id: string) => loop(id, "Service Line Information", seg("SVC", { els: { 1: "R", 2: "R" } }), [STC(true), REF(1), DTP(1)], { max: 99 });

// Situational under the subscriber (absent when the dependent is the patient), required under the dependent.
const claim276 = (id: string, required: boolean) => loop(id, "Claim Status Tracking Number", TRN(), [REF(3), seg("AMT"), DTP(1), svcReq(`2210${id.slice(-1)}`)], { req: required, max: 99 });
const claim277 = (id: string) => loop(id, "Claim Status Tracking Number", TRN(), [STC(false), REF(3), DTP(1), svcRes(`2220${id.slice(-1)}`)]);

/** The 276/277 levels: payer, receiver, provider, subscriber, dependent; `request` says which of the two. */
function statusBody(request: boolean): SetTable["body"] {
  const trace = (id: string, name: string) => (request ? [] : [loop(id, name, TRN(), [STC(true)])]);
  // The 276 puts demographics on the HL level; the dependent's are required.
  const dmg = (required: boolean) => (request ? [{ ...DMG, req: required }] : []);
  const claim = (suffix: "D" | "E") => (request ? claim276(`2200${suffix}`, suffix === "E") : claim277(`2200${suffix}`));
  return [
    bht("0010", [request ? "13" : "08"], { 3: "R" }),
    hl("2000A", "Information Source Level", "20", [
      nm1("2100A", "Payer Name", ["PR"], request ? [] : [PER(3)], { req: true }),
      hl("2000B", "Information Receiver Level", "21", [
        nm1("2100B", "Information Receiver Name", ["41"], [], { req: true }),
        ...trace("2200B", "Information Receiver Trace Identifier"),
        hl("2000C", "Service Provider Level", "19", [
          nm1("2100C", "Provider Name", ["1P"], [], { req: true }),
          ...trace("2200C", "Provider of Service Trace Identifier"),
          hl("2000D", "Subscriber Level", "22", [
            ...dmg(false),
            nm1("2100D", "Subscriber Name", ["IL"], [], { req: true }),
            claim("D"),
            hl("2000E", "Dependent Level", "23", [...dmg(true), nm1("2100E", "Dependent Name", ["QC"], [], { req: true }), claim("E")]),
          ]),
        ], { req: request }),
      ], { req: request }),
    ], { req: true }),
  ];
}

export const X276: SetTable = { id: "276", set: "276", version: "005010X212", body: statusBody(true) };
export const X277: SetTable = { id: "277", set: "277", version: "005010X212", body: statusBody(false) };

const QTY = seg("QTY", { max: 2 });
const AMT = seg("AMT", { max: 2 });
export const X277CA: SetTable = {
  id: "277CA",
  set: "277",
  version: "005010X214",
  body: [
    bht("0085", ["08"], { 3: "R", 5: "R", 6: ["TH"] }),
    hl("2000A", "Information Source Level", "20", [
      nm1("2100A", "Information Source Name", ["AY", "PR"], [], { req: true }),
      loop("2200A", "Transmission Receipt Control Identifier", TRN(), [DTP(1), DTP(1)], { req: true }),
      hl("2000B", "Information Receiver Level", "21", [
        nm1("2100B", "Information Receiver Name", ["41"], [], { req: true }),
        loop("2200B", "Information Receiver Application Trace Identifier", TRN(), [STC(false), QTY, AMT], { req: true }),
        hl("2000C", "Billing Provider of Service Level", "19", [
          nm1("2100C", "Billing Provider Name", ["85"], [], { req: true }),
          loop("2200C", "Provider of Service Information Trace Identifier", TRN(), [STC(false), REF(2), QTY, AMT]),
          hl("2000D", "Patient Level", "PT", [
            nm1("2100D", "Patient Name", ["QC"], [], { req: true }),
            loop("2200D", "Claim Status Tracking Number", TRN(), [STC(true), REF(5), DTP(1), svcRes("2220D")], { req: true }),
          ]),
        ]),
      ], { req: true }),
    ], { req: true }),
  ],
};
