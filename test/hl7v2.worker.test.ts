// The HL7 v2 modules run inside workerd (no Node-only APIs): parse, ACK and convert there.
import { describe, expect, it } from "vitest";
import { buildAck } from "../src/standards/hl7v2/ack";
import { convertToFhir } from "../src/standards/hl7v2/convert/index";
import { parseBatch, parseMessage } from "../src/standards/hl7v2/parse";

const ADT = [
  "\uFEFFMSH|^~\\&|ADT|HOSP|EHR|HOSP|20240101120000+0100||ADT^A01^ADT_A01|W1|P|2.5.1",
  "EVN|A01|20240101120000",
  "PID|1||555^^^HOSP&2.16.840.1.113883.19.5&ISO^MR||DOE^JANE\\T\\CO||19800101|F",
  "PV1|1|I|W1^R1^B1||||123^SMITH^ANNA||||||||||||V100^^^HOSP^VN|||||||||||||||||||||||||20240101110000+0100",
].join("\n");

describe("HL7 v2 in the Worker runtime", () => {
  it("parses, acknowledges and converts", () => {
    const m = parseMessage(ADT);
    expect(m.get("PID-5.2")).toBe("JANE&CO");
    expect(buildAck(m, "AA").get("MSA-2")).toBe("W1");
    expect(parseBatch(`${ADT}\n${ADT.replace("|W1|", "|W2|")}`).messages.length).toBe(2);
    const bundle = convertToFhir(m);
    const types = bundle.entry!.map((e) => e.resource!.resourceType);
    expect(types).toContain("Patient");
    expect(types).toContain("Encounter");
    expect(types.at(-1)).toBe("Provenance");
    expect(bundle.entry![0]!.fullUrl).toMatch(/^urn:uuid:[0-9a-f-]{36}$/);
    expect(convertToFhir(ADT)).toEqual(bundle);
  });
});
