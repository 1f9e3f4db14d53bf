import { describe, expect, it } from "vitest";
import { buildAck } from "../../../src/standards/hl7v2/ack";
import { parseMessage, readMsh } from "../../../src/standards/hl7v2/parse";
import { fixture } from "./support";

const fixed = { controlId: "ACK0001", dateTime: "20240102030405+0000" };

describe("buildAck", () => {
  it("swaps sender and receiver, echoes processing id, version and control id (v2.8)", () => {
    const m = parseMessage(fixture("ADT-A01-01.hl7"));
    const ack = buildAck(m, "AA", undefined, undefined, fixed);
    const msh = ack.header;
    expect(msh.fields[3]).toBe(m.header.fields[5]);
    expect(msh.fields[4]).toBe(m.header.fields[6]);
    expect(msh.fields[5]).toBe(m.header.fields[3]);
    expect(msh.fields[6]).toBe(m.header.fields[4]);
    expect(ack.get("MSH-7")).toBe("20240102030405+0000");
    expect(ack.get("MSH-9")).toBe("ACK");
    expect(ack.get("MSH-9.2")).toBe("A01");
    expect(ack.get("MSH-9.3")).toBe("ACK");
    expect(ack.controlId).toBe("ACK0001");
    expect(ack.processingId).toBe("P");
    expect(ack.version).toBe("2.8");
    expect(ack.get("MSA-1")).toBe("AA");
    expect(ack.get("MSA-2")).toBe("MSG00001");
    expect(ack.segmentsNamed("ERR")).toEqual([]);
    // the ACK is itself a parseable message
    expect(parseMessage(ack.toString()).toString()).toBe(ack.toString());
  });

  it("puts the text in MSA-3 before v2.7 and ERR-2/3/4/8 in v2.5", () => {
    const m = parseMessage("MSH|^~\\&|APP|FAC|RAPP|RFAC|20240101||ORU^R01^ORU_R01|C9|T|2.5.1\rPID|1");
    const ack = buildAck(m, "AE", "Patient id missing", [{ code: "101", location: { segment: "PID", field: 3 }, text: "PID-3 is required" }], fixed);
    expect(ack.get("MSA-1")).toBe("AE");
    expect(ack.get("MSA-2")).toBe("C9");
    expect(ack.get("MSA-3")).toBe("Patient id missing");
    expect(ack.processingId).toBe("T");
    const err = ack.segment("ERR")!;
    expect(err.get("2.1")).toBe("PID");
    expect(err.get("2.2")).toBe("1");
    expect(err.get("2.3")).toBe("3");
    expect(err.get("3.1")).toBe("101");
    expect(err.get("3.2")).toBe("Required field missing");
    expect(err.get("3.3")).toBe("HL70357");
    expect(err.get("4")).toBe("E");
    expect(err.get("8")).toBe("PID-3 is required");
  });

  it("uses ERR-1 (ELD) for v2.3/2.4 and the two-component MSH-9 for v2.3", () => {
    const m = parseMessage(fixture("ADT01-23.hl7"));
    expect(m.version).toBe("2.3");
    const ack = buildAck(m, "AR", "rejected", [{ code: "200", text: "no" }], fixed);
    expect(ack.get("MSH-9")).toBe("ACK");
    expect(ack.get("MSH-9.2")).toBe("A01");
    expect(ack.get("MSH-9.3")).toBeUndefined();
    expect(ack.get("MSA-3")).toBe("rejected");
    const err = ack.segment("ERR")!;
    expect(err.get("1.4.1")).toBe("200");
    expect(err.get("1.4.2")).toBe("no");
    expect(err.get("1.4.3")).toBe("HL70357");
  });

  it("v2.7+ has no MSA-3: the text goes to an ERR", () => {
    const m = parseMessage(fixture("SIU-S12-01.hl7"));
    const ack = buildAck(m, "CE", "could not store", undefined, fixed);
    expect(ack.get("MSA-1")).toBe("CE");
    expect(ack.get("MSA-3")).toBeUndefined();
    expect(ack.get("ERR-3.1")).toBe("207");
    expect(ack.get("ERR-8")).toBe("could not store");
    const ok = buildAck(m, "CA", "stored", undefined, fixed);
    expect(ok.get("ERR-4")).toBe("I");
    expect(ok.get("ERR-3.1")).toBe("0");
  });

  it("escapes text and keeps the message's own delimiters", () => {
    const m = parseMessage("MSH#:*!@#APP#FAC#R#RF#20240101##ADT:A04#X1#P#2.4\rPID#1");
    const ack = buildAck(m, "AE", "bad # and : here", undefined, fixed);
    expect(ack.delimiters.field).toBe("#");
    expect(ack.toString()).toContain("MSA#AE#X1#bad !F! and !S! here");
    expect(parseMessage(ack.toString()).get("MSA-3")).toBe("bad # and : here");
  });

  it("acknowledges from the header alone when the body does not parse", () => {
    const text = "MSH|^~\\&|APP|FAC|RAPP|RFAC|20240101||ADT^A01|C77|P|2.5\rnot a segment";
    const ack = buildAck(readMsh(text), "AR", "unparseable", [{ code: "100" }], fixed);
    expect(ack.get("MSA-2")).toBe("C77");
    expect(ack.get("ERR-3.1")).toBe("100");
    expect(ack.get("MSH-5")).toBe("APP");
  });

  it("generates a control id and a timestamp when none is given", () => {
    const m = parseMessage(fixture("ADT-A01-01.hl7"));
    const a = buildAck(m, "AA");
    const b = buildAck(m, "AA");
    expect(a.controlId).toMatch(/^[0-9A-F]{20}$/);
    expect(a.controlId).not.toBe(b.controlId);
    expect(a.get("MSH-7")).toMatch(/^\d{14}\+0000$/);
  });
});
