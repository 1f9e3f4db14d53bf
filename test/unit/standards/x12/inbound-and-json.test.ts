// The X12 inbound adapter (sender, control id, facts, the acknowledgment per outcome) and the
// JSON model X12 parse outputs and X12 build takes back: every clean fixture round-trips.
import { describe, expect, it } from "vitest";
import { writeX12 } from "../../../../src/standards/x12/build";
import { documentFromJson, readToJson } from "../../../../src/standards/x12/document-json";
import { x12InboundAdapter } from "../../../../src/standards/x12/inbound";
import { acknowledgementText } from "../../../../src/standards/x12/nodes/acknowledgement";
import { readX12 } from "../../../../src/standards/x12/read";
import { fixture, fixtureNames } from "./support";

describe("X12 inbound adapter", () => {
  it("reads sender, control id and facts, and answers accepted with the 999 and the asked-for TA1", () => {
    const reading = x12InboundAdapter.read(fixture("837P-subscriber.x12"), undefined);
    expect(reading.key).toEqual({ sender: "NWBILLING|NWBILLING", controlId: "000000101" });
    expect(reading.facts).toEqual({ messageType: "837", triggerEvent: "005010X222A1", version: "00501" });
    const ack = x12InboundAdapter.acknowledge(reading.header!, "accepted");
    expect(ack).toContain("TA1*000000101*260115*1230*A*000~");
    expect(ack).toContain("AK9*A*1*1*1~");
    expect(x12InboundAdapter.attributes({ ...reading.facts, sender: reading.key!.sender })).toEqual({ transaction_set: "837", implementation: "005010X222A1", sender: "NWBILLING" });
  });

  it("rejects a file with issues naming the first, and answers an errored one with a rejecting TA1 only", () => {
    const bad = x12InboundAdapter.read(fixture("835-errors.x12"), undefined);
    expect(bad.problem?.code).toMatch(/^X12_/);
    expect(bad.problem?.message).toMatch(/\(at segment \d+/);
    expect(x12InboundAdapter.acknowledge(bad.header!, "rejected", bad.problem)).toMatch(/AK9\*R/);
    const good = x12InboundAdapter.read(fixture("270-subscriber.x12"), undefined);
    const errored = x12InboundAdapter.acknowledge(good.header!, "errored");
    expect(errored).toMatch(/TA1\*\d{9}\*\d{6}\*\d{4}\*R\*000~IEA\*0\*/);
    expect(errored).not.toContain("ST*999");
    expect(x12InboundAdapter.read("  ", undefined).problem?.code).toBe("X12_EMPTY");
  });
});

describe("acknowledgments arriving inbound", () => {
  it("stores and routes a 999 or a TA1 without answering it", () => {
    const ack = acknowledgementText(readX12(fixture("837P-subscriber.x12")), { control: 7 });
    const reading = x12InboundAdapter.read(ack, undefined);
    expect(reading.problem).toBeUndefined();
    expect(reading.key).toEqual({ sender: "CASCADEHP|CASCADEHP", controlId: "000000007" });
    expect(reading.facts.messageType).toBe("999");
    expect(x12InboundAdapter.acknowledge(reading.header!, "accepted")).toBe("");
  });
});

describe("the JSON model", () => {
  it.each(fixtureNames().filter((n) => !n.includes("errors")))("%s: JSON → X12 writes the file again", (name) => {
    const text = fixture(name);
    const read = readX12(text);
    const json = JSON.parse(JSON.stringify(readToJson(read)));
    const again = writeX12(documentFromJson(json));
    const d = read.interchanges[0]!.interchange.delimiters;
    // Byte-equal segment by segment, after normalising the line breaks between segments.
    const segments = (x12: string) => x12.split(d.segment).map((seg) => seg.replace(/^[\r\n]+/, "")).filter(Boolean);
    expect(segments(again)).toEqual(segments(text));
    expect(again.endsWith(d.segment)).toBe(true);
  });
});
