// MSH reading and ACK building, on the shared sample messages and on edge cases.
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ackPolicy, buildAck, type MshHeader, readHeader } from "../src/protocols/hl7/header";
import { normaliseSegments } from "../../src/standards/hl7v2/parse";
import { FIXTURE_DIR, fixture } from "./support/fixtures";

function header(text: string): MshHeader {
  const result = readHeader(text);
  if (!result.ok) throw new Error(result.error);
  return result.header;
}

describe("readHeader", () => {
  it("reads the MSH fields of a sample", () => {
    expect(header(fixture("ORU-R01-01.hl7"))).toMatchObject({
      sendingApplication: "IA PHIMS Stage^2.16.840.1.114222.4.3.3.5.1.2^ISO",
      messageType: "ORU^R01^ORU_R01",
      triggerEvent: "R01",
      controlId: "2.16.840.1.114222.4.3.3.5.1.2-20120314235954.325",
      processingId: "T",
      version: "2.5.1",
      acceptAckType: "AL",
    });
  });

  it("reads a sample with a byte-order mark and LF line ends once normalised", () => {
    const raw = readFileSync(path.join(FIXTURE_DIR, "ORM-O01-01.hl7"), "utf8");
    expect(raw.charCodeAt(0)).toBe(0xfeff);
    const text = normaliseSegments(raw);
    expect(text).not.toContain("\n");
    expect(header(text).messageType).toBe("ORM^O01^ORM_O01");
  });

  it("honours non-standard delimiters", () => {
    const h = header("MSH#*~\\&#APP#FAC#RAPP#RFAC#20240101##ADT*A04#CTRL-9#P#2.3\rPID#1");
    expect(h).toMatchObject({ sendingApplication: "APP", triggerEvent: "A04", controlId: "CTRL-9", version: "2.3" });
    expect(buildAck(h, { code: "AA", ackControlId: "X" })).toMatch(/^MSH#\*~\\&#RAPP#RFAC#APP#FAC#\d{14}\+0000##ACK\*A04#X#P#2\.3\rMSA#AA#CTRL-9\r$/);
  });

  it("echoes MSH-2 byte for byte and answers a header cut before MSH-12 in v2.5", () => {
    const h = header("MSH|^~\\&#|APP|FAC|RAPP|RFAC|20240101||ADT^A01^ADT_A01|C7|P|2.7.1");
    expect(buildAck(h, { code: "AA", ackControlId: "X" }).split("\r")[0]).toMatch(/^MSH\|\^~\\&#\|RAPP\|RFAC\|APP\|FAC\|\d{14}\+0000\|\|ACK\^A01\^ACK\|X\|P\|2\.7\.1$/);
    const cut = header("MSH|^~\\&|APP|FAC|RAPP|RFAC|20240101||ADT^A01|C8");
    const [msh, msa] = buildAck(cut, { code: "AR", ackControlId: "Y", errorText: "too big" }).split("\r");
    expect(msh).toMatch(/\|ACK\^A01\^ACK\|Y\|P\|2\.5$/);
    expect(msa).toBe("MSA|AR|C8|too big");
  });

  it("refuses text without MSH and MSH with bad encoding characters", () => {
    expect(readHeader("PID|1").ok).toBe(false);
    expect(readHeader("MSH|^^\\&|A").ok).toBe(false);
    expect(readHeader("MSHA^~\\&A").ok).toBe(false);
  });
});

describe("ACKs", () => {
  const original = header("MSH|^~\\&|APP|FAC|RAPP|RFAC|20240101||ADT^A01|C1|P|2.5.1");
  const enhanced = (mode: string) => header(`MSH|^~\\&|APP|FAC|RAPP|RFAC|20240101||ADT^A01|C1|P|2.5.1|||${mode}`);

  it("uses AA/AE/AR in original mode and CA/CE/CR as MSH-15 asks in enhanced mode", () => {
    expect(["accepted", "error", "rejected"].map((o) => ackPolicy(original, o as "accepted"))).toEqual(["AA", "AE", "AR"]);
    expect(ackPolicy(enhanced("AL"), "accepted")).toBe("CA");
    expect(ackPolicy(enhanced("NE"), "rejected")).toBeNull();
    expect(ackPolicy(enhanced("ER"), "accepted")).toBeNull();
    expect(ackPolicy(enhanced("ER"), "rejected")).toBe("CR");
    expect(ackPolicy(enhanced("SU"), "error")).toBeNull();
    expect(ackPolicy(enhanced("NE"), "accepted", true)).toBe("CA");
    expect(ackPolicy(null, "rejected")).toBe("AR");
  });

  it("puts the reason in MSA-3 and ERR, escaped with the message's delimiters", () => {
    const ack = buildAck(original, { code: "AR", ackControlId: "A1", errorCode: "101", errorText: "bad | field ^" });
    const [, msa, err] = ack.split("\r");
    expect(msa).toBe("MSA|AR|C1|bad \\F\\ field \\S\\");
    expect(err).toBe("ERR|||101^Required field missing^HL70357|E||||bad \\F\\ field \\S\\");
    const old = header("MSH|^~\\&|APP|FAC|||20240101||ADT^A01|C1|P|2.3");
    expect(buildAck(old, { code: "AR", ackControlId: "A1", errorText: "x" }).split("\r")[2]).toBe("ERR|^^^207&x&HL70357");
    expect(buildAck(null, { code: "AR", ackControlId: "A1", errorText: "no MSH" })).toMatch(/^MSH\|\^~\\&\|.*\rMSA\|AR\|\|no MSH\r/);
  });
});
