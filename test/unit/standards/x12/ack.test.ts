import { describe, expect, it } from "vitest";
import { ack999Body, acknowledge, ta1For } from "../../../../src/standards/x12/ack";
import { writeSegment, writeX12 } from "../../../../src/standards/x12/build";
import type { Segment } from "../../../../src/standards/x12/model";
import { readX12 } from "../../../../src/standards/x12/read";
import { fixture } from "./support";

const D = { element: "*", component: ":", repetition: "^", segment: "~" };
const lines = (segs: Segment[]) => segs.map((s) => writeSegment(s, D));
const body999 = (name: string) => lines(ack999Body(readX12(fixture(name)).interchanges[0]!.groups[0]!));

describe("999 implementation acknowledgment", () => {
  it("accepts a clean set", () => {
    expect(body999("837P-subscriber.x12")).toEqual(["AK1*HC*101*005010X222A1~", "AK2*837*0001*005010X222A1~", "IK5*A~", "AK9*A*1*1*1~"]);
  });
  it("837P errors: missing segment (IK304 3), element errors under IK3 8 with IK4, wrong count (IK502 4)", () => {
    expect(body999("837P-errors.x12")).toEqual([
      "AK1*HC*101*005010X222A1~",
      "AK2*837*0001*005010X222A1~",
      "IK3*NM1*18*2000B*3~",
      "IK3*CLM*18*2300*8~",
      "IK4*7**7~",
      "IK3*HI*21*2300*8~",
      "IK4*1**12~",
      "IK4*1:1**7~",
      "IK5*R*4*5~",
      "AK9*R*1*1*0~",
    ]);
  });
  it("835 errors: ST03 not used (IK4 I10), too many elements (IK4 3)", () => {
    expect(body999("835-errors.x12")).toEqual([
      "AK1*HP*301*005010X221A1~",
      "AK2*835*0001*005010X221A1~", // AK203 echoes the ST03 received
      "IK3*ST*1**8~",
      "IK4*3**I10~",
      "IK3*TRN*3**3~",
      "IK3*CAS*15*2100*8~",
      "IK4*20**3~",
      "IK3*PLB*31**8~",
      "IK4*15**3~",
      "IK5*R*5~",
      "AK9*R*1*1*0~",
    ]);
  });
  it("group errors go to AK9 (GE02 mismatch: 4; GS08 wrong version: 2)", () => {
    expect(body999("276-errors.x12").slice(-1)).toEqual(["AK9*R*1*1*0*4~"]);
    expect(body999("278-request-errors.x12").slice(-1)).toEqual(["AK9*R*1*1*0*2~"]);
  });
  it("an unrecognized segment is IK304 1; a partly accepted group is P", () => {
    expect(body999("277-errors.x12")).toContain("IK3*ZZZ*13*2200D*1~");
    const two = fixture("276-claim.x12").replace("SE*17*0001~", "SE*17*0001~\nST*276*0002*005010X212~\nBHT*0010*13*X*20260215*0900~\nSE*4*0002~").replace("GE*1*601", "GE*2*601");
    const ak = lines(ack999Body(readX12(two).interchanges[0]!.groups[0]!));
    expect(ak).toContain("IK5*R*4*5~");
    expect(ak.slice(-1)).toEqual(["AK9*P*2*2*1~"]);
  });
  it("acknowledge() answers from the receiver to the sender, one 999 per group, and it reads back clean", () => {
    const [ix] = acknowledge(readX12(fixture("837P-errors.x12")), { control: 900, at: new Date("2026-01-15T13:00:00Z") });
    const text = writeX12({ interchanges: [ix!] });
    expect(text.startsWith("ISA*00*          *00*          *ZZ*CASCADEHP      *ZZ*NWBILLING      *260115*1300*^*00501*000000900*0*T*:~")).toBe(true);
    expect(text).toContain("GS*FA*CASCADEHP*NWBILLING*20260115*1300*900*X*005010X231A1~ST*999*0001*005010X231A1~AK1*HC*101*005010X222A1~");
    // ISA14 of the 837P asks for a TA1.
    expect(text).toContain("TA1*000000101*260115*1230*A*000~");
    const back = readX12(text);
    expect(back.issues.filter((e) => e.code !== "UNSUPPORTED_SET")).toEqual([]);
  });
});

describe("answering a 4010 interchange (no repetition separator)", () => {
  it("picks a repetition separator the sender does not use as a delimiter", () => {
    const text = "ISA^00^          ^00^          ^ZZ^SENDER         ^ZZ^RECEIVER       ^260101^1200^U^00401^000000003^1^T^:~IEA^0^000000003~";
    const [ix] = acknowledge(readX12(text), { control: 4 });
    expect(ix!.delimiters).toEqual({ element: "^", component: ":", segment: "~", repetition: "{" });
    expect(readX12(writeX12({ interchanges: [ix!] })).issues).toEqual([]);
  });
});

describe("TA1 interchange acknowledgment", () => {
  const ta1 = (text: string) => writeSegment(ta1For(readX12(text).interchanges[0]!), D);
  it("accepts a good envelope", () => {
    expect(ta1(fixture("270-subscriber.x12"))).toBe("TA1*000000401*260105*0800*A*000~");
  });
  it("rejects a control number mismatch (001), a wrong group count (021), a missing IEA (023)", () => {
    const t = fixture("270-subscriber.x12");
    expect(ta1(t.replace("IEA*1*000000401", "IEA*1*000000499"))).toBe("TA1*000000401*260105*0800*R*001~");
    expect(ta1(t.replace("IEA*1*000000401", "IEA*2*000000401"))).toBe("TA1*000000401*260105*0800*R*021~");
    expect(ta1(t.replace("IEA*1*000000401~", ""))).toBe("TA1*000000401*260105*0800*R*023~");
  });
  it("is sent without a group when the interchange had none, and only when asked or in error otherwise", () => {
    const empty = "ISA*00*          *00*          *ZZ*SENDER         *ZZ*RECEIVER       *260101*1200*^*00501*000000005*1*T*:~IEA*0*000000005~";
    const [ix] = acknowledge(readX12(empty), { control: 1 });
    expect(ix!.groups).toEqual([]);
    expect(writeX12({ interchanges: [ix!] })).toMatch(/~TA1\*000000005\*260101\*1200\*A\*000~IEA\*0\*000000001~$/);
    const [quiet] = acknowledge(readX12(fixture("270-subscriber.x12")), { control: 1 });
    expect(quiet!.ta1).toBeUndefined();
  });
});
