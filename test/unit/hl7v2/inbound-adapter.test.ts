// HL7 v2 as an inbound protocol: what its adapter reads from a message (sender, control id,
// facts for triggers), the acknowledgement per outcome, and the trigger attributes.
import { describe, expect, it } from "vitest";
import { hl7InboundAdapter as hl7 } from "../../../src/standards/hl7v2/inbound";

const ADT = "MSH|^~\\&|EPIC|HOSP|CDIS|CDIS|20260101120000||ADT^A01^ADT_A01|C1|P|2.5.1\rPID|1||123^^^HOSP^MR||Doe^Jane";

describe("the HL7 v2 inbound adapter", () => {
  it("identifies a message by MSH-3|MSH-4 and MSH-10, with MSH-9 and MSH-12 as facts", () => {
    const r = hl7.read(`\uFEFF${ADT.replace(/\r/g, "\n")}\n`, undefined);
    expect(r.key).toEqual({ sender: "EPIC|HOSP", controlId: "C1" });
    expect(r.facts).toEqual({ messageType: "ADT", triggerEvent: "A01", version: "2.5.1" });
    expect(r.raw).not.toContain("\n");
    expect(r.problem).toBeUndefined();
  });

  it("names the connection as sender when MSH-3 and MSH-4 are empty", () => {
    const r = hl7.read(ADT.replace("EPIC|HOSP", "|"), { remote_address: "10.0.0.5:4000" });
    expect(r.key?.sender).toBe("connection:10.0.0.5:4000");
  });

  it("answers AA accepted, AR rejected and AE errored, echoing MSH-10", () => {
    const { header } = hl7.read(ADT, undefined);
    expect(hl7.acknowledge(header!, "accepted")).toContain("\rMSA|AA|C1");
    expect(hl7.acknowledge(header!, "rejected", { code: "X", message: "bad" })).toMatch(/\rMSA\|AR\|C1/);
    expect(hl7.acknowledge(header!, "errored", { code: "X", message: "try later" })).toMatch(/\rMSA\|AE\|C1\|try later/);
  });

  it("reports what it cannot identify, with a header to answer when the MSH was readable", () => {
    const noMsh = hl7.read("PID|1||123", undefined);
    expect(noMsh).toMatchObject({ header: null, problem: { code: "HL7_NO_MSH" } });
    expect(noMsh.key).toBeUndefined();
    const noId = hl7.read(ADT.replace("|C1|", "||"), undefined);
    expect(noId.problem?.code).toBe("HL7_MISSING_CONTROL_ID");
    expect(noId.header).not.toBeNull();
    expect(noId.facts.messageType).toBe("ADT");
  });

  it("fires the HL7 trigger's event with the attributes its filters compare", () => {
    expect(hl7.eventType).toBe("hl7.message");
    expect(hl7.attributes({ sender: "EPIC|HOSP", messageType: "ADT", triggerEvent: "A01", version: "2.5.1" })).toEqual({
      message_type: "ADT",
      trigger_event: "A01",
      sending_application: "EPIC",
      sending_facility: "HOSP",
    });
  });
});
