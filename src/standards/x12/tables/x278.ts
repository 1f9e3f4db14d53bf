// 278 Health Care Services Review, request and response, 005010X217. Both are ST01 278;
// BHT02 tells them apart (13 request, 11 response).
import { hl, type LoopRule, nm1, type SegmentRule, seg, type SetTable } from "../table";
import { bht, DMG, DTP, N3, N4, PER, PRV, REF } from "./common";

const UMO = ["X3"];
const REQUESTER = ["1P", "FA"];
const EVENT_PROVIDERS = ["1T", "71", "72", "73", "77", "AAJ", "DD", "DK", "DN", "FA", "G3", "P3", "QB", "QV", "SJ"];
const AAA = seg("AAA", { max: 9, els: { 1: ["N", "Y"], 3: "R", 4: "R" } });
const TRN = seg("TRN", { max: 2, els: { 1: ["1", "2"], 2: "R", 3: "R" } });
const HI = seg("HI", { maxElements: 12, els: { 1: { codes: ["ABK", "BK", "ABF", "BF", "ABJ", "BJ", "ABN", "BN", "BBR", "BR", "BBQ", "BQ", "BO", "BP", "CAH", "DR", "JP", "LOI", "PR", "TC", "ZZ"], req: true, once: true } } });
const UM = (required: boolean) => seg("UM", { req: required, els: { 1: ["AR", "HS", "IN", "SC"], 2: ["I", "S", "1", "2", "3", "4", "5", "6"] } });
const HCR = (required: boolean) => seg("HCR", { req: required, els: { 1: ["A1", "A2", "A3", "A4", "A6", "C", "CT", "D", "IP", "NA"] } });

const detail = (): SegmentRule[] => [
  REF(9),
  DTP(3),
  HI,
  seg("HSD"),
  seg("CRC", { max: 9 }),
  seg("CL1"),
  seg("CR1"),
  seg("CR2"),
  seg("CR4"),
  seg("CR5"),
  seg("CR6"),
  seg("CR7"),
  seg("CR8"),
  seg("PWK", { max: 10 }),
  seg("MSG"),
];

const provider = (id: string, response: boolean) => nm1(id, "Provider Name", EVENT_PROVIDERS, [REF(7), N3, N4, PER(1), ...(response ? [AAA] : []), PRV], { max: 13 });

const service = (response: boolean): LoopRule =>
  hl("2000F", "Service Level", "SS", [
    TRN,
    ...(response ? [AAA] : []),
    // Situational in the request too: the service's review comes from the event's UM (X12 RFI 1061).
    UM(false),
    HCR(response),
    REF(9),
    DTP(3),
    seg("SV1"),
    seg("SV2"),
    seg("SV3"),
    seg("TOO", { max: 32 }),
    seg("HSD"),
    seg("PWK", { max: 10 }),
    seg("MSG"),
    provider("2010F", response),
  ]);

const event = (response: boolean): LoopRule =>
  hl("2000E", "Patient Event Level", "EV", [TRN, ...(response ? [AAA] : []), UM(true), HCR(response), ...detail(), provider("2010EA", response), service(response)]);

const member = (id: string, level: string, nmId: string, codes: string[], response: boolean, more: LoopRule[]): LoopRule =>
  hl(id, level === "22" ? "Subscriber Level" : "Dependent Level", level, [
    nm1(nmId, level === "22" ? "Subscriber Name" : "Dependent Name", codes, [REF(3), N3, N4, ...(response ? [AAA] : []), DMG, seg("INS")], { req: true }),
    ...more,
  ]);

const body = (response: boolean): SetTable["body"] => [
  bht("0007", [response ? "11" : "13"], { 3: "R" }),
  hl("2000A", "Utilization Management Organization (UMO) Level", "20", [
    ...(response ? [AAA] : []),
    nm1("2010A", "UMO Name", UMO, response ? [PER(3), AAA] : [], { req: true }),
    hl("2000B", "Requester Level", "21", [
      nm1("2010B", "Requester Name", REQUESTER, [REF(9), N3, N4, PER(1), ...(response ? [AAA] : []), PRV], { req: true }),
      member("2000C", "22", "2010C", ["IL"], response, [member("2000D", "23", "2010D", ["QC"], response, [event(response)]), event(response)]),
    ], { req: true }),
  ], { req: true }),
];

export const X278Request: SetTable = { id: "278-request", set: "278", version: "005010X217", body: body(false) };
export const X278Response: SetTable = { id: "278-response", set: "278", version: "005010X217", body: body(true) };
