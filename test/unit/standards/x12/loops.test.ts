import { describe, expect, it } from "vitest";
import { type JsonLoop, loopsToJson } from "../../../../src/standards/x12/json";
import { type LoopNode, isLoopNode } from "../../../../src/standards/x12/loops";
import { el } from "../../../../src/standards/x12/model";
import { acknowledge } from "../../../../src/standards/x12/ack";
import { writeX12 } from "../../../../src/standards/x12/build";
import { x12ToFhir } from "../../../../src/standards/x12/fhir/index";
import { readX12 } from "../../../../src/standards/x12/read";
import { brief, fixture, fixtureNames, wrap } from "./support";

/** The loop tree as "loop(SEG SEG loop(...))" text, segment ids only. */
function shape(n: LoopNode): string {
  return `${n.loop}(${n.children.map((c) => (isLoopNode(c) ? shape(c) : c.id)).join(" ")})`;
}

function only(name: string) {
  const r = readX12(fixture(name));
  expect(r.transactions).toHaveLength(1);
  return r.transactions[0]!;
}

describe("every valid fixture reads without issues, and every error fixture has issues", () => {
  const names = fixtureNames();
  it("covers each set with at least two fixtures, one with errors", () => {
    const sets = new Map<string, string[]>();
    for (const n of names) {
      const id = readX12(fixture(n)).transactions[0]!.table!.id;
      sets.set(id, [...(sets.get(id) ?? []), n]);
    }
    expect([...sets.keys()].sort()).toEqual(["270", "271", "276", "277", "277CA", "278-request", "278-response", "835", "837I", "837P"]);
    for (const [, files] of sets) {
      expect(files.length).toBeGreaterThanOrEqual(2);
      expect(files.some((f) => f.includes("errors"))).toBe(true);
    }
  });
  it.each(names.filter((n) => !n.includes("errors")))("%s is clean", (n) => {
    expect(brief(readX12(fixture(n)).issues)).toEqual([]);
  });
});

describe("loops per set", () => {
  it("837P: HL hierarchy 2000A > 2000B > 2300 > 2400, NM1 loops by qualifier", () => {
    const t = only("837P-subscriber.x12");
    expect(t.table!.id).toBe("837P");
    expect(shape(t.root!)).toBe(
      "HEADER(BHT 1000A(NM1 PER) 1000B(NM1) 2000A(HL PRV 2010AA(NM1 N3 N4 REF) 2000B(HL SBR 2010BA(NM1 N3 N4 DMG) 2010BB(NM1) 2300(CLM DTP REF HI 2310B(NM1 PRV) 2400(LX SV1 DTP) 2400(LX SV1 DTP)))))",
    );
  });
  it("837P: the patient level 2000C holds the claim when the patient is a dependent", () => {
    const t = only("837P-dependent.x12");
    expect(shape(t.root!)).toContain("2000B(HL SBR 2010BA(NM1) 2010BB(NM1) 2000C(HL PAT 2010CA(NM1 N3 N4 DMG) 2300(CLM HI 2400(LX SV1 DTP))))");
  });
  it("837I: CL1 and institutional HI qualifiers in 2300, SV2 lines", () => {
    const t = only("837I-inpatient.x12");
    expect(t.table!.id).toBe("837I");
    expect(shape(t.root!)).toContain("2300(CLM DTP DTP CL1 REF HI HI HI 2310A(NM1 PRV) 2400(LX SV2) 2400(LX SV2 DTP))");
    expect(shape(only("837I-outpatient.x12").root!)).toContain("2300(CLM DTP CL1 HI 2400(LX SV2 DTP))");
  });
  it("835: 1000A/1000B, LX 2000 > CLP 2100 > SVC 2110, PLB after the loops", () => {
    const t = only("835-payment.x12");
    expect(shape(t.root!)).toBe(
      "HEADER(BPR TRN REF DTM 1000A(N1 N3 N4 PER) 1000B(N1 N3 N4 REF) 2000(LX 2100(CLP CAS NM1 NM1 DTM DTM 2110(SVC DTM CAS CAS AMT) 2110(SVC DTM CAS)) 2100(CLP CAS NM1)) PLB)",
    );
    expect(shape(only("835-denial.x12").root!)).toBe("HEADER(BPR TRN DTM 1000A(N1 N3 N4 PER) 1000B(N1) 2000(LX 2100(CLP CAS NM1)))");
  });
  it("270: 2000A > 2000B > 2000C (> 2000D) with EQ loops", () => {
    expect(shape(only("270-subscriber.x12").root!)).toBe("HEADER(BHT 2000A(HL 2100A(NM1) 2000B(HL 2100B(NM1) 2000C(HL TRN 2100C(NM1 DMG DTP 2110C(EQ) 2110C(EQ))))))");
    expect(shape(only("270-dependent.x12").root!)).toContain("2000C(HL 2100C(NM1) 2000D(HL TRN 2100D(NM1 DMG 2110D(EQ))))");
  });
  it("271: EB loops with MSG, LS/LE around 2120C, AAA rejections", () => {
    expect(shape(only("271-active.x12").root!)).toContain("2100C(NM1 N3 N4 DMG DTP 2110C(EB) 2110C(EB DTP) 2110C(EB MSG) 2110C(EB LS 2120C(NM1) LE))");
    expect(shape(only("271-rejected.x12").root!)).toContain("2100C(NM1 AAA)");
  });
  it("276: 2000A..2000D/E with the claim 2200 and service 2210 loops", () => {
    expect(shape(only("276-claim.x12").root!)).toContain("2000D(HL DMG 2100D(NM1) 2200D(TRN REF REF AMT DTP))");
    expect(shape(only("276-dependent.x12").root!)).toContain("2000E(HL DMG 2100E(NM1) 2200E(TRN REF AMT DTP 2210E(SVC))))");
  });
  it("277: STC in 2200D and 2220D", () => {
    expect(shape(only("277-status.x12").root!)).toContain("2200D(TRN STC REF REF DTP 2220D(SVC STC))");
    expect(shape(only("277-pending.x12").root!)).toContain("2000E(HL 2100E(NM1) 2200E(TRN STC REF DTP))");
  });
  it("277CA: BHT 0085, 2200A..2200D trace loops, patient level PT", () => {
    const t = only("277CA-accepted.x12");
    expect(t.table!.id).toBe("277CA");
    expect(shape(t.root!)).toContain("2000D(HL 2100D(NM1) 2200D(TRN STC REF DTP))");
    expect(shape(t.root!)).toContain("2200A(TRN DTP DTP)");
  });
  it("278: request and response told apart by BHT02; EV and SS levels", () => {
    const req = only("278-request.x12");
    expect(req.table!.id).toBe("278-request");
    expect(shape(req.root!)).toContain("2000E(HL TRN UM DTP HI 2010EA(NM1) 2000F(HL TRN UM SV1))");
    const res = only("278-response.x12");
    expect(res.table!.id).toBe("278-response");
    expect(shape(res.root!)).toContain("2000E(HL TRN UM HCR REF DTP 2000F(HL TRN UM HCR SV1))");
    expect(shape(only("278-dependent-request.x12").root!)).toContain("2000D(HL 2010D(NM1 DMG) 2000E(HL TRN UM DTP HI))");
  });
});

describe("errors name the loop, segment and position", () => {
  const issues = (name: string) => brief(readX12(fixture(name)).issues);
  it("837P: missing payer loop, bad CLM07, HI repeated instead of separate elements, wrong SE01", () => {
    expect(issues("837P-errors.x12")).toEqual([
      ["MISSING_SEGMENT", "NM1", undefined, "2000B", 18],
      ["BAD_CODE", "CLM", 7, "2300", 18],
      ["TOO_MANY_REPETITIONS", "HI", 1, "2300", 21],
      ["BAD_CODE", "HI", 1, "2300", 21],
      ["SE_COUNT_MISMATCH", "SE", 1, "SE", 30],
    ]);
  });
  it("837I: CLM06 not used, CL1 required", () => {
    expect(issues("837I-errors.x12")).toEqual([
      ["ELEMENT_NOT_USED", "CLM", 6, "2300", 19],
      ["MISSING_SEGMENT", "CL1", undefined, "2300", 22],
    ]);
  });
  it("835: ST03 not used, CAS over 6 triplets, PLB over 6 pairs, TRN missing", () => {
    expect(issues("835-errors.x12")).toEqual([
      ["ELEMENT_NOT_USED", "ST", 3, "HEADER", 1],
      ["MISSING_SEGMENT", "TRN", undefined, "HEADER", 3],
      ["TOO_MANY_ELEMENTS", "CAS", 20, "2100", 15],
      ["TOO_MANY_ELEMENTS", "PLB", 15, "HEADER", 31],
    ]);
  });
  it("270: dangling HL parent, missing source name", () => {
    expect(issues("270-errors.x12")).toEqual([
      ["MISSING_SEGMENT", "NM1", undefined, "2000A", 4],
      ["BAD_HL_PARENT", "HL", 2, "2000C", 6],
    ]);
  });
  it("271: wrong BHT01, EB outside its loop", () => {
    expect(issues("271-errors.x12")).toEqual([
      ["BAD_CODE", "BHT", 1, "HEADER", 2],
      ["UNEXPECTED_SEGMENT", "EB", undefined, "2000C", 8],
    ]);
  });
  it("276: missing provider name, GE02 mismatch", () => {
    expect(issues("276-errors.x12")).toEqual([
      ["MISSING_SEGMENT", "NM1", undefined, "2000C", 8],
      ["GE_CONTROL_MISMATCH", "GE", 2, undefined, undefined],
    ]);
  });
  it("277: unknown segment, IEA01 wrong", () => {
    expect(issues("277-errors.x12")).toEqual([
      ["UNRECOGNIZED_SEGMENT", "ZZZ", undefined, "2200D", 13],
      ["IEA_COUNT_MISMATCH", "IEA", 1, undefined, undefined],
    ]);
  });
  it("277CA: STC required in 2200D", () => {
    expect(issues("277CA-errors.x12")).toEqual([["MISSING_SEGMENT", "STC", undefined, "2200D", 20]]);
  });
  it("278 request: GS08 not the 278 identifier, UM missing", () => {
    expect(issues("278-request-errors.x12")).toEqual([
      ["BAD_CODE", "GS", 8, undefined, undefined],
      ["MISSING_SEGMENT", "UM", undefined, "2000E", 12],
    ]);
  });
  it("278 response: HCR required, HCR01 code", () => {
    expect(issues("278-response-errors.x12")).toEqual([
      ["MISSING_SEGMENT", "HCR", undefined, "2000E", 12],
      ["BAD_CODE", "HCR", 1, "2000F", 17],
    ]);
  });
  it("an 837P without its CLM: one MISSING_SEGMENT naming CLM and loop 2300, the claim's segments read into it", async () => {
    const text = fixture("837P-subscriber.x12").replace(/CLM\*[^~]*~\n/, "").replace("SE*31*", "SE*30*");
    const r = readX12(text);
    expect(brief(r.issues)).toEqual([["MISSING_SEGMENT", "CLM", undefined, "2300", 19]]);
    expect(r.issues[0]!.message).toBe("segment CLM is required to start loop 2300 (Claim Information) before DTP");
    expect(shape(r.transactions[0]!.root!)).toContain("2010BB(NM1) 2300(DTP REF HI 2310B(NM1 PRV) 2400(LX SV1 DTP) 2400(LX SV1 DTP))");
    const ack = writeX12({ interchanges: acknowledge(r, { control: 5, at: new Date("2026-01-15T13:00:00Z") }) });
    expect(ack).toContain("IK3*CLM*19*2300*3~");
    await expect(x12ToFhir(r)).rejects.toMatchObject({ code: "MISSING_SEGMENT", loop: "2300", message: "loop 2300 (Claim Information) has no CLM: the FHIR mapping needs it" });
  });
  it("a service line without its LX names LX and loop 2400; a trigger that comes later is out of order, not missing", () => {
    const noLx = fixture("837P-subscriber.x12").replace("LX*2~\n", "").replace("SE*31*", "SE*30*");
    expect(brief(readX12(noLx).issues)).toEqual([["MISSING_SEGMENT", "LX", undefined, "2400", 28]]);
    // 271-errors: EB before TRN and NM1 stays one unexpected segment (the NM1 follows).
    expect(brief(readX12(fixture("271-errors.x12")).issues).map((i) => i[0])).toEqual(["BAD_CODE", "UNEXPECTED_SEGMENT"]);
  });
  it("an unsupported set or version is reported on ST, and its segments kept", () => {
    const r = readX12(wrap("834", ["BGN*00*1*20260101"], "005010X220A1"));
    expect(brief(r.issues)).toEqual([["UNSUPPORTED_SET", "ST", 1, "HEADER", 1]]);
    expect(r.transactions[0]!.tx.body.map((s) => s.id)).toEqual(["BGN"]);
  });
  it("the 837I picked by ST03 even when GS08 is the 837P's: GS08 is reported", () => {
    const text = fixture("837I-outpatient.x12").replace("*202*X*005010X223A2", "*202*X*005010X222A1");
    const r = readX12(text);
    expect(r.transactions[0]!.table!.id).toBe("837I");
    expect(brief(r.issues)).toEqual([["BAD_CODE", "GS", 8, undefined, undefined]]);
  });
  it("an HL whose parent is an earlier HL of another branch is reported", () => {
    const text = fixture("276-dependent.x12").replace("HL*5*4*23*0", "HL*5*3*23*0");
    const r = readX12(text);
    expect(r.issues.map((e) => [e.code, e.message])).toEqual([["BAD_HL_PARENT", "HL02 '3' names HL 3, not the enclosing HL 4"]]);
  });
  it("segments over their maximum use are reported, the next rule for the same segment first", () => {
    // 2300 allows 14 REF (the TR3's qualifiers together); the 15th is one too many.
    const reps = Array.from({ length: 15 }, (_, i) => `REF*D9*T${i}`);
    const text = fixture("837P-subscriber.x12").replace("REF*D9*TRACE1001~", `${reps.join("~\n")}~`);
    const r = readX12(text.replace(/SE\*\d+\*/, `SE*${31 + 14}*`));
    expect(brief(r.issues)).toEqual([["SEGMENT_REPEATED", "REF", undefined, "2300", 35]]);
    expect(el(r.transactions[0]!.tx.body[33]!, 2)).toBe("T14");
  });
});

describe("loops as plain JSON", () => {
  it("composites become arrays, repetitions { repeats }, loops nest", () => {
    const t = only("837P-subscriber.x12");
    const json = loopsToJson(t.root!);
    expect(json.loop).toBe("HEADER");
    const a = json.children.find((c) => "loop" in c && c.loop === "2000A") as JsonLoop;
    const b = a.children.find((c) => "loop" in c && c.loop === "2000B") as JsonLoop;
    const claim = b.children.find((c) => "loop" in c && c.loop === "2300") as JsonLoop;
    expect(claim.children[0]).toEqual({ id: "CLM", elements: ["PCN1001", "125.5", "", "", ["11", "B", "1"], "Y", "A", "Y", "Y"] });
    const hi = readX12(wrap("837", ["HI*ABK:J069^ABF:R51*ABF:R52"], "005010X222A1")).transactions[0]!.root!;
    expect(loopsToJson(hi).children[0]).toEqual({ id: "HI", elements: [{ repeats: [["ABK", "J069"], ["ABF", "R51"]] }, ["ABF", "R52"]] });
    expect(JSON.parse(JSON.stringify(json))).toEqual(json);
  });
});
