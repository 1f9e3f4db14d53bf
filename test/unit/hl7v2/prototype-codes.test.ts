// Codes in a message that are named like Object members (`constructor`, `toString`) are just
// unknown codes: the vocabulary tables have no prototype to find them in (#20).
import { describe, expect, it } from "vitest";
import { convertToFhir } from "../../../src/standards/hl7v2";

const message = [
  "MSH|^~\\&|APP|FAC|RCV|RFAC|20240101120000||ADT^A01|MSG1|P|2.5",
  "EVN|A01|20240101120000",
  "PID|1||123^^^MRN||Doe^Jane^^^^^constructor||19800101|toString|||1 Main St^^Town^^12345^^constructor||^constructor^PH^^^^555",
  "PV1|1|constructor|WARD^1^A",
  "OBX|1|CE|code^Name^constructor||x^y^hasOwnProperty",
].join("\r");

describe("HL7 codes named like prototype members", () => {
  it("map to nothing rather than to Object members", () => {
    const bundle = convertToFhir(message);
    const text = JSON.stringify(bundle);
    expect(text).not.toMatch(/function|\[native code\]|\[object/);
    const encounter = bundle.entry?.find((e) => e.resource?.resourceType === "Encounter")?.resource as { class?: { code?: string } };
    expect(encounter.class?.code).toBe("UNK");
  });
});
