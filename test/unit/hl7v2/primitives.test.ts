import { describe, expect, it } from "vitest";
import { prune } from "../../../src/standards/hl7v2/convert/context";
import { knownCodingSystem } from "../../../src/standards/hl7v2/convert/vocab";
import { addMinutes, parseHl7DateTime, toFhirDate, toFhirDateTime, toFhirInstant, toFhirTime } from "../../../src/standards/hl7v2/datetime";
import { URL_NAMESPACE, uuidV5 } from "../../../src/platform/name-uuid";
import { FHIR_DATETIME } from "./support";

describe("UUIDv5", () => {
  it("gives the RFC 9562 test vector and is deterministic", () => {
    expect(uuidV5("www.example.com", "6ba7b810-9dad-11d1-80b4-00c04fd430c8")).toBe("2ed6657d-e927-568b-95e1-2665a8aea6a2");
    expect(uuidV5("x", URL_NAMESPACE)).toBe(uuidV5("x", URL_NAMESPACE));
    expect(uuidV5("x", URL_NAMESPACE)).not.toBe(uuidV5("y", URL_NAMESPACE));
  });
});

describe("HL7 DTM → FHIR", () => {
  it.each([
    ["2024", "2024"],
    ["202403", "2024-03"],
    ["20240315", "2024-03-15"],
    ["2024031508", "2024-03-15T08:00:00Z"],
    ["202403150830", "2024-03-15T08:30:00Z"],
    ["20240315083015.1234", "2024-03-15T08:30:15.1234Z"],
    ["20240315083015+0215", "2024-03-15T08:30:15+02:15"],
    ["20240315-0500", "2024-03-15"],
  ])("%s → %s", (raw, fhir) => {
    expect(toFhirDateTime(raw)).toBe(fhir);
    expect(FHIR_DATETIME.test(fhir)).toBe(true);
  });
  it("uses the default zone only when the value has none", () => {
    expect(toFhirDateTime("202403150830", "-05:00")).toBe("2024-03-15T08:30:00-05:00");
    expect(toFhirDateTime("202403150830+0100", "-05:00")).toBe("2024-03-15T08:30:00+01:00");
  });
  it.each(["20241301", "20240230", "2024031525", "202403150860", "20240315+1500", "2024-03-15", "abc", "24"])("refuses %s", (raw) => {
    expect(parseHl7DateTime(raw)).toBeUndefined();
    expect(toFhirDateTime(raw)).toBeUndefined();
  });
  it("date, instant and time forms", () => {
    expect(toFhirDate("20240315083015+0100")).toBe("2024-03-15");
    expect(toFhirInstant("20240315")).toBeUndefined();
    expect(toFhirInstant("202403150830", "Z")).toBe("2024-03-15T08:30:00Z");
    expect(toFhirTime("0830")).toBe("08:30:00");
    expect(toFhirTime("083015.5")).toBe("08:30:15.5");
    expect(toFhirTime("2561")).toBeUndefined();
    expect(addMinutes("2024-03-15T23:30:00+02:15", 45)).toBe("2024-03-16T00:15:00+02:15");
    expect(addMinutes("2024-03-15", 45)).toBeUndefined();
  });
});

describe("coding systems", () => {
  it.each([
    ["LN", "http://loinc.org"],
    ["SCT", "http://snomed.info/sct"],
    ["SNM", "http://snomed.info/sct"],
    ["I10", "http://hl7.org/fhir/sid/icd-10"],
    ["I10C", "http://hl7.org/fhir/sid/icd-10-cm"],
    ["I9CM", "http://hl7.org/fhir/sid/icd-9-cm"],
    ["C4", "http://www.ama-assn.org/go/cpt"],
    ["UCUM", "http://unitsofmeasure.org"],
    ["HL70078", "http://terminology.hl7.org/CodeSystem/v2-0078"],
    ["HL7127", "http://terminology.hl7.org/CodeSystem/v2-0127"],
    ["2.16.840.1.113883.6.1", "urn:oid:2.16.840.1.113883.6.1"],
    ["http://example.org/cs", "http://example.org/cs"],
  ])("%s → %s", (name, uri) => {
    expect(knownCodingSystem(name)).toBe(uri);
  });
  it("unknown names are left to the caller; options override", () => {
    expect(knownCodingSystem("99LOCAL")).toBeUndefined();
    expect(knownCodingSystem("99LOCAL", { "99LOCAL": "https://lab.example.org/codes" })).toBe("https://lab.example.org/codes");
  });
});

describe("prune", () => {
  it("drops empty strings, arrays, objects and undefined, recursively", () => {
    expect(prune({ a: "", b: [], c: {}, d: undefined, e: [{ x: " " }, { y: 1 }], f: { g: { h: [] } }, i: false, j: 0 })).toEqual({ e: [{ y: 1 }], i: false, j: 0 });
    expect(prune({ a: [undefined, ""] })).toBeUndefined();
  });
});
