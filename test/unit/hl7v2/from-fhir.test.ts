// FHIR → HL7 v2 (src/standards/hl7v2/from-fhir): escaping in every field, each message
// type's required segments and MSH, every OBX value type, reference resolution, and the
// errors that name what the input lacks. Messages are read back with the service's parser
// and its converter; the escaping test also with Debian's python3-hl7.

import { describe, expect, it } from "vitest";
import type { Bundle, Resource } from "../../../src/features/fhir/port";
import { convertToFhir } from "../../../src/standards/hl7v2/convert/index";
import { Hl7EncodingError } from "../../../src/standards/hl7v2/errors";
import { escapeValue, DEFAULT_DELIMITERS } from "../../../src/standards/hl7v2/escape";
import { convertFromFhir, type FromFhirOptions } from "../../../src/standards/hl7v2/from-fhir/index";
import { parseMessage } from "../../../src/standards/hl7v2/parse";
import { canon, ourTree } from "./from-fhir-support";
import { findPythonHl7, readWithPythonHl7 } from "./python-hl7";
import { checkBundle, type Json, resolve, resourcesOf } from "./support";

const LOINC = "http://loinc.org";
const UCUM = "http://unitsofmeasure.org";
const MRN = "urn:oid:1.2.840.99.1";

const patient = (over: Json = {}): Resource => ({
  resourceType: "Patient",
  id: "p1",
  identifier: [{ system: MRN, value: "4711", type: { coding: [{ system: "http://terminology.hl7.org/CodeSystem/v2-0203", code: "MR" }] }, assigner: { display: "GENHOSP" } }],
  name: [{ family: "Musterfrau", given: ["Erika", "Maria"], use: "official" }],
  gender: "female",
  birthDate: "1964-08-12",
  address: [{ line: ["Hauptstr. 1"], city: "Berlin", postalCode: "10115", country: "DE", use: "home" }],
  telecom: [
    { system: "phone", value: "+49 30 1234567", use: "home" },
    { system: "email", value: "erika@example.org" },
  ],
  ...over,
});

const encounter = (over: Json = {}): Resource => ({
  resourceType: "Encounter",
  id: "e1",
  identifier: [{ system: "urn:oid:1.2.840.99.2", value: "V-99" }],
  status: "in-progress",
  class: { system: "http://terminology.hl7.org/CodeSystem/v3-ActCode", code: "IMP" },
  subject: { reference: "Patient/p1" },
  period: { start: "2026-03-16T08:30:00+01:00" },
  ...over,
});

const bundle = (...resources: Resource[]): Bundle => ({
  resourceType: "Bundle",
  type: "collection",
  entry: resources.map((r) => ({ fullUrl: `https://fhir.example.org/r4/${r.resourceType}/${r.id}`, resource: r })),
});

const options = (messageType: string, msh: FromFhirOptions["msh"] = {}): FromFhirOptions => ({
  messageType,
  msh: { sendingApplication: "CDIS", sendingFacility: "GENHOSP", receivingApplication: "RIS", receivingFacility: "HOSP", controlId: "CTRL1", timestamp: "2026-03-16T10:15:00Z", ...msh },
});

const names = (text: string) => parseMessage(text).segments.map((s) => s.name);

function encodingError(f: () => unknown): Hl7EncodingError {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(Hl7EncodingError);
    return e as Hl7EncodingError;
  }
  throw new Error("expected an Hl7EncodingError");
}

// ------------------------------------------------------------------ escaping

/** Every delimiter, the escape character and a line break. */
const NASTY = "a|b^c~d\\e&f\ng";

describe("escaping", () => {
  it("writes \\F\\ \\S\\ \\T\\ \\R\\ \\E\\ for the delimiters and the escape character", () => {
    expect(escapeValue("a|b^c&d~e\\f", DEFAULT_DELIMITERS)).toBe("a\\F\\b\\S\\c\\T\\d\\R\\e\\E\\f");
  });

  it("escapes delimiters in every field: the parser and python3-hl7 read each value back exactly", () => {
    const p = patient({
      identifier: [{ system: `urn:hl7v2:authority:${encodeURIComponent(NASTY)}`, value: NASTY, type: { coding: [{ code: "MR" }] } }],
      name: [{ family: NASTY, given: [NASTY], prefix: [NASTY], suffix: [NASTY] }],
      address: [{ line: [NASTY, NASTY], city: NASTY, state: NASTY, postalCode: NASTY, country: NASTY }],
      telecom: [{ system: "phone", value: NASTY, use: "home" }],
      maritalStatus: { coding: [{ system: `urn:hl7v2:codesystem:${encodeURIComponent(NASTY)}`, code: NASTY, display: NASTY }], text: NASTY },
    });
    const obs: Resource = {
      resourceType: "Observation",
      id: "o1",
      status: "final",
      code: { coding: [{ system: LOINC, code: "8310-5", display: NASTY }] },
      subject: { reference: "Patient/p1" },
      valueString: NASTY,
      note: [{ text: NASTY }],
      referenceRange: [{ text: NASTY }],
    };
    const { text } = convertFromFhir(bundle(p, encounter(), obs), options("ADT^A08", { sendingApplication: NASTY, sendingFacility: "GENHOSP" }));
    // every value is one leaf: no delimiter of the value survived unescaped
    const m = parseMessage(text);
    expect(names(text)).toEqual(["MSH", "EVN", "PID", "PV1", "OBX", "NTE"]);
    expect(m.get("MSH-3")).toBe(NASTY);
    expect(m.get("PID-3.1")).toBe(NASTY);
    expect(m.get("PID-3.4.1")).toBe(NASTY);
    for (const c of [1, 2, 4, 5]) expect(m.get(`PID-5.${c}`)).toBe(NASTY);
    for (const c of [3, 4, 5, 6]) expect(m.get(`PID-11.${c}`)).toBe(NASTY);
    expect(m.get("PID-11.1.1")).toBe(NASTY);
    expect(m.get("PID-11.2")).toBe(NASTY);
    expect(m.get("PID-13.1")).toBe(NASTY);
    expect(m.get("PID-16.1")).toBe(NASTY);
    expect(m.get("PID-16.3")).toBe(NASTY);
    expect(m.get("OBX-5")).toBe(NASTY.split("\n")[0]);
    expect(m.get("OBX[1]-5[2]")).toBe("g");
    expect(m.get("NTE-3")).toBe(NASTY);
    // and the converter brings the values back as they were
    const back = convertToFhir(m);
    const pat = resourcesOf(back, "Patient")[0];
    expect(pat.identifier[0]).toMatchObject({ value: NASTY, system: `urn:hl7v2:authority:${encodeURIComponent(NASTY)}` });
    expect(pat.name[0]).toMatchObject({ family: NASTY, given: [NASTY], prefix: [NASTY], suffix: [NASTY] });
    expect(pat.address[0]).toMatchObject({ line: [NASTY, NASTY], city: NASTY, state: NASTY, postalCode: NASTY, country: NASTY });
    expect(pat.maritalStatus).toEqual({ coding: [{ system: `urn:hl7v2:codesystem:${encodeURIComponent(NASTY)}`, code: NASTY, display: NASTY }], text: NASTY });
    const o = resourcesOf(back, "Observation")[0];
    expect(o.valueString).toBe(NASTY);
    expect(o.note).toEqual([{ text: NASTY }]);
    expect(o.referenceRange).toEqual([{ text: NASTY }]);
    // an independent reader agrees, value for value
    const python = findPythonHl7();
    expect(python, "python3-hl7 not found: apt-get install -y python3-hl7 (Debian)").toBeDefined();
    const [tree] = readWithPythonHl7(python!, [text]);
    expect(canon(tree)).toEqual(canon(ourTree(m)));
  });

  it("writes with other delimiters too", () => {
    const d = { field: "#", component: "!", repetition: "*", escape: "$", subcomponent: "%" };
    const { text } = convertFromFhir(bundle(patient({ name: [{ family: "A#B!C*D$E%F^G|H" }] })), { ...options("ADT^A08"), delimiters: d });
    expect(text.startsWith("MSH#!*$%#CDIS#")).toBe(true);
    expect(parseMessage(text).get("PID-5.1")).toBe("A#B!C*D$E%F^G|H");
  });
});

// ------------------------------------------------------------------ MSH and the message types

describe("MSH from the configuration", () => {
  it("sets applications, facilities, time, type with structure, control id, processing id and version (default 2.5.1)", () => {
    const { text, controlId } = convertFromFhir(
      bundle(patient(), encounter()),
      options("ADT^A01", { sendingFacility: { namespace: "GENHOSP", universalId: "1.2.840.99", universalIdType: "ISO" }, processingId: "T", acceptAckType: "AL", applicationAckType: "NE", characterSet: "UNICODE UTF-8" }),
    );
    const msh = parseMessage(text).header;
    expect(msh.toString()).toBe("MSH|^~\\&|CDIS|GENHOSP^1.2.840.99^ISO|RIS|HOSP|20260316101500+0000||ADT^A01^ADT_A01|CTRL1|T|2.5.1|||AL|NE||UNICODE UTF-8");
    expect(controlId).toBe("CTRL1");
    expect(text.endsWith("\r")).toBe(true);
    expect(text.split("\r").filter(Boolean).every((line) => /^[A-Z][A-Z0-9]{2}\|/.test(line))).toBe(true);
  });

  it("makes a control id per message with the generator, or 20 random characters", () => {
    let n = 0;
    const gen = () => `G${++n}`;
    expect(parseMessage(convertFromFhir(bundle(patient()), options("ADT^A08", { controlId: gen })).text).controlId).toBe("G1");
    expect(parseMessage(convertFromFhir(bundle(patient()), options("ADT^A08", { controlId: gen })).text).controlId).toBe("G2");
    const a = convertFromFhir(bundle(patient()), { messageType: "ADT^A08" });
    const b = convertFromFhir(bundle(patient()), { messageType: "ADT^A08" });
    expect(a.controlId).toMatch(/^[A-Z0-9]{20}$/);
    expect(a.controlId).not.toBe(b.controlId);
    expect(parseMessage(a.text).version).toBe("2.5.1");
  });

  it("writes v2.3 without the message structure and with EVN-1", () => {
    const m = parseMessage(convertFromFhir(bundle(patient(), encounter()), options("ADT^A04", { version: "2.3" })).text);
    expect(m.header.field(9).text).toBe("ADT^A04");
    expect(m.get("EVN-1")).toBe("A04");
    const v28 = parseMessage(convertFromFhir(bundle(patient(), encounter()), options("ADT^A04", { version: "2.8" })).text);
    expect(v28.get("EVN-1")).toBeUndefined();
    expect(v28.get("EVN-2")).toBe("20260316101500+0000");
  });
});

const observation = (id: string, over: Json): Resource => ({
  resourceType: "Observation",
  id,
  status: "final",
  code: { coding: [{ system: LOINC, code: "2345-7", display: "Glucose" }] },
  subject: { reference: "Patient/p1" },
  effectiveDateTime: "2026-03-16T09:00:00+01:00",
  ...over,
});

const serviceRequest = (over: Json = {}): Resource => ({
  resourceType: "ServiceRequest",
  id: "sr1",
  identifier: [{ system: "urn:oid:1.2.840.99.3", value: "PL-1", type: { coding: [{ code: "PLAC" }] } }],
  status: "active",
  intent: "order",
  priority: "stat",
  code: { coding: [{ system: LOINC, code: "24323-8", display: "Comprehensive metabolic panel" }] },
  subject: { reference: "Patient/p1" },
  occurrenceDateTime: "2026-03-17T07:00:00+01:00",
  authoredOn: "2026-03-16T10:00:00+01:00",
  note: [{ text: "fasting" }],
  ...over,
});

describe("each message type's segments", () => {
  const cases: [string, Resource[], string[]][] = [
    ["ADT^A01", [patient(), encounter()], ["MSH", "EVN", "PID", "PV1"]],
    ["ADT^A03", [patient(), encounter({ status: "finished", period: { start: "2026-03-10T08:00:00Z", end: "2026-03-16T12:00:00Z" } })], ["MSH", "EVN", "PID", "PV1"]],
    ["ADT^A04", [patient(), encounter({ class: { system: "http://terminology.hl7.org/CodeSystem/v3-ActCode", code: "AMB" } })], ["MSH", "EVN", "PID", "PV1"]],
    ["ADT^A08", [patient()], ["MSH", "EVN", "PID", "PV1"]],
    ["ORU^R01", [patient(), observation("o1", { valueQuantity: { value: 105, unit: "mg/dL", system: UCUM, code: "mg/dL" } })], ["MSH", "PID", "OBR", "OBX"]],
    ["ORM^O01", [patient(), serviceRequest()], ["MSH", "PID", "ORC", "OBR", "NTE"]],
    ["OML^O21", [patient(), serviceRequest()], ["MSH", "PID", "ORC", "TQ1", "OBR", "NTE"]],
  ];
  it.each(cases)("%s", (type, resources, segments) => {
    const { text } = convertFromFhir(bundle(...resources), options(type));
    expect(names(text)).toEqual(segments);
    const m = parseMessage(text);
    expect(`${m.messageType}^${m.triggerEvent}`).toBe(type);
    // the converter reads every type but OML back (it converts ORM^O01 orders)
    if (type !== "OML^O21") expect(checkBundle(convertToFhir(m), "CTRL1")).toEqual([]);
  });

  it("ADT^A08 without an Encounter writes PV1-2 N, which converts back to no visit", () => {
    const { text } = convertFromFhir(bundle(patient()), options("ADT^A08"));
    expect(parseMessage(text).segment("PV1")!.toString()).toBe("PV1|1|N");
    expect(resourcesOf(convertToFhir(text), "Encounter")).toEqual([]);
  });

  it("ADT^A01 carries PID, PV1 (visit, class, period, attending, location) and OBX, AL1, DG1 of the patient", () => {
    const doc: Resource = { resourceType: "Practitioner", id: "d1", identifier: [{ system: "http://hl7.org/fhir/sid/us-npi", value: "1234567893" }], name: [{ family: "House", given: ["Gregory"], prefix: ["Dr"] }] };
    const ward: Resource = { resourceType: "Location", id: "l1", name: "Ward 4" };
    const enc = encounter({ participant: [{ type: [{ coding: [{ code: "ATND" }] }], individual: { reference: "Practitioner/d1" } }], location: [{ location: { reference: "Location/l1" }, status: "active" }] });
    const allergy: Resource = { resourceType: "AllergyIntolerance", id: "a1", patient: { reference: "Patient/p1" }, category: ["medication"], criticality: "high", code: { coding: [{ system: "http://www.nlm.nih.gov/research/umls/rxnorm", code: "7980", display: "Penicillin G" }] }, reaction: [{ manifestation: [{ text: "Hives" }], severity: "severe" }] };
    const condition: Resource = { resourceType: "Condition", id: "c1", subject: { reference: "Patient/p1" }, encounter: { reference: "Encounter/e1" }, code: { coding: [{ system: "http://hl7.org/fhir/sid/icd-10", code: "I10", display: "Essential hypertension" }] }, onsetDateTime: "2020-01-01" };
    const weight = observation("w1", { code: { coding: [{ system: LOINC, code: "29463-7", display: "Body weight" }] }, valueQuantity: { value: 72.5, unit: "kg", system: UCUM, code: "kg" } });
    const { text } = convertFromFhir(bundle(patient(), enc, doc, ward, allergy, condition, weight), options("ADT^A01"));
    expect(names(text)).toEqual(["MSH", "EVN", "PID", "PV1", "OBX", "AL1", "DG1"]);
    const m = parseMessage(text);
    expect(m.segment("PID")!.toString()).toBe(
      "PID|1||4711^^^GENHOSP&1.2.840.99.1&ISO^MR||Musterfrau^Erika^Maria^^^^L||19640812|F|||Hauptstr. 1^^Berlin^^10115^DE^H||+49 30 1234567^PRN^PH^^^^^^^^^+49 30 1234567~^NET^Internet^erika@example.org",
    );
    expect([m.get("PV1-2"), m.get("PV1-3"), m.segment("PV1")!.field(7).text, m.segment("PV1")!.field(19).text, m.get("PV1-44")]).toEqual([
      "I",
      "Ward 4",
      "1234567893^House^Gregory^^^Dr^^^NPI",
      "V-99^^^&1.2.840.99.2&ISO^VN",
      "20260316083000+0100",
    ]);
    expect(m.segment("AL1")!.toString()).toBe("AL1|1|DA^^HL70127|7980^Penicillin G^RXNORM|SV^^HL70128|Hives");
    expect(m.segment("DG1")!.toString()).toBe("DG1|1||I10^Essential hypertension^I10||20200101");
    const back = convertToFhir(m);
    const enc2 = resourcesOf(back, "Encounter")[0];
    expect(enc2).toMatchObject({ status: "in-progress", class: { code: "IMP" }, identifier: [expect.objectContaining({ system: "urn:oid:1.2.840.99.2", value: "V-99" })] });
    expect(resolve(back, enc2.participant[0].individual).identifier[0]).toMatchObject({ system: "http://hl7.org/fhir/sid/us-npi", value: "1234567893" });
    expect(resourcesOf(back, "AllergyIntolerance")[0]).toMatchObject({ category: ["medication"], criticality: "high", reaction: [{ severity: "severe" }] });
    expect(resourcesOf(back, "Condition")[0].code.coding[0]).toMatchObject({ system: "http://hl7.org/fhir/sid/icd-10", code: "I10" });
    expect(resourcesOf(back, "Observation")[0].valueQuantity).toEqual({ value: 72.5, unit: "kg", system: UCUM, code: "kg" });
  });

  it("ADT^A03 puts AL1 and DG1 before OBX, as ADT_A03 does", () => {
    const allergy: Resource = { resourceType: "AllergyIntolerance", id: "a1", patient: { reference: "Patient/p1" }, code: { text: "Latex" } };
    const obs = observation("o1", { valueString: "ok" });
    expect(names(convertFromFhir(bundle(patient(), encounter({ status: "finished" }), obs, allergy), options("ADT^A03")).text)).toEqual(["MSH", "EVN", "PID", "PV1", "AL1", "OBX"]);
  });

  it("ADT^A40 writes a PID and MRG pair per surviving patient, MRG from the replaced patient's identifiers", () => {
    const survivor = patient({ link: [{ other: { reference: "Patient/old" }, type: "replaces" }] });
    const old: Resource = { resourceType: "Patient", id: "old", active: false, identifier: [{ system: MRN, value: "0815", assigner: { display: "GENHOSP" } }], name: [{ family: "Musterfrau", given: ["E."] }], link: [{ other: { reference: "Patient/p1" }, type: "replaced-by" }] };
    const { text } = convertFromFhir(bundle(survivor, old), options("ADT^A40"));
    expect(names(text)).toEqual(["MSH", "EVN", "PID", "MRG"]);
    const m = parseMessage(text);
    expect(m.header.field(9).text).toBe("ADT^A40^ADT_A39");
    expect(m.segment("MRG")!.toString()).toBe("MRG|0815^^^GENHOSP&1.2.840.99.1&ISO||||||Musterfrau^E.");
    const back = convertToFhir(m);
    const [s, o] = resourcesOf(back, "Patient");
    expect(o).toMatchObject({ active: false, identifier: [expect.objectContaining({ system: MRN, value: "0815" })] });
    expect(s.link[0].type).toBe("replaces");
  });

  it("ORU^R01: one order group per DiagnosticReport, with its request's ORC, the results as OBX, NTE notes", () => {
    const report: Resource = {
      resourceType: "DiagnosticReport",
      id: "r1",
      identifier: [{ system: "urn:oid:1.2.840.99.4", value: "F-9", type: { coding: [{ code: "FILL" }] } }],
      basedOn: [{ reference: "ServiceRequest/sr1" }],
      status: "final",
      category: [{ coding: [{ system: "http://terminology.hl7.org/CodeSystem/v2-0074", code: "CH" }] }],
      code: { coding: [{ system: LOINC, code: "24323-8" }] },
      subject: { reference: "Patient/p1" },
      effectiveDateTime: "2026-03-16T08:00:00+01:00",
      issued: "2026-03-16T11:00:00+01:00",
      result: [{ reference: "Observation/o1" }, { reference: "Observation/o2" }],
    };
    const o1 = observation("o1", { valueQuantity: { value: 105, unit: "mg/dL", system: UCUM, code: "mg/dL" }, referenceRange: [{ low: { value: 70 }, high: { value: 99 } }], interpretation: [{ coding: [{ system: "http://terminology.hl7.org/CodeSystem/v3-ObservationInterpretation", code: "H" }] }], note: [{ text: "repeat tomorrow" }] });
    const o2 = observation("o2", { code: { coding: [{ system: LOINC, code: "2951-2", display: "Sodium" }] }, valueQuantity: { value: 139, unit: "mmol/L", system: UCUM, code: "mmol/L" } });
    const { text } = convertFromFhir(bundle(patient(), serviceRequest({ status: "completed" }), report, o1, o2), options("ORU^R01"));
    expect(names(text)).toEqual(["MSH", "PID", "ORC", "OBR", "NTE", "TQ1", "OBX", "NTE", "OBX"]);
    const m = parseMessage(text);
    expect(m.segment("ORC")!.toString()).toBe("ORC|RE|PL-1^^1.2.840.99.3^ISO|F-9^^1.2.840.99.4^ISO||CM||||20260316100000+0100");
    const obr = m.segment("OBR")!;
    expect([2, 3, 4, 7, 22, 24, 25].map((n) => obr.field(n).text)).toEqual(["PL-1^^1.2.840.99.3^ISO", "F-9^^1.2.840.99.4^ISO", "24323-8^^LN", "20260316080000+0100", "20260316110000+0100", "CH", "F"]);
    expect(m.segment("OBX")!.toString()).toBe("OBX|1|NM|2345-7^Glucose^LN||105|mg/dL^mg/dL^UCUM|70-99|H|||F|||20260316090000+0100");
    const back = convertToFhir(m);
    const dr = resourcesOf(back, "DiagnosticReport")[0];
    expect(dr).toMatchObject({ status: "final", issued: "2026-03-16T11:00:00+01:00", category: [{ coding: [{ code: "CH" }] }] });
    expect(dr.result.map((r: Json) => resolve(back, r).valueQuantity.value)).toEqual([105, 139]);
    const sr = resolve(back, dr.basedOn[0]);
    expect(sr).toMatchObject({ status: "completed", priority: "stat", occurrenceDateTime: "2026-03-17T07:00:00+01:00", note: [{ text: "fasting" }] });
    const glucose = resolve(back, dr.result[0]);
    expect(glucose.referenceRange[0]).toMatchObject({ low: { value: 70 }, high: { value: 99 }, text: "70-99" });
    expect(glucose.interpretation[0].coding[0]).toMatchObject({ code: "H" });
    expect(glucose.note).toEqual([{ text: "repeat tomorrow" }]);
  });

  it("ORU^R01: Observations without a report go under an OBR of their own (the code of the one Observation)", () => {
    const hr = observation("hr", { code: { coding: [{ system: LOINC, code: "8867-4", display: "Heart rate" }] }, valueQuantity: { value: 72, unit: "/min", system: UCUM, code: "/min" } });
    const r = convertFromFhir(bundle(patient(), hr), options("ORU^R01"));
    expect(parseMessage(r.text).get("OBR-4.1")).toBe("8867-4");
    expect(r.warnings.join()).toMatch(/without a DiagnosticReport/);
  });

  it("ORM^O01 and OML^O21 carry the same order: ORC (status), timing, OBR, notes, reasons as DG1, supporting OBX", () => {
    const reason: Resource = { resourceType: "Condition", id: "c1", subject: { reference: "Patient/p1" }, code: { coding: [{ system: "http://hl7.org/fhir/sid/icd-10", code: "E11.9" }], text: "Type 2 diabetes" } };
    const sr = serviceRequest({ reasonReference: [{ reference: "Condition/c1" }], requester: { reference: "Practitioner/d1" } });
    const doc: Resource = { resourceType: "Practitioner", id: "d1", identifier: [{ system: "urn:hl7v2:authority:GENHOSP", value: "D7" }], name: [{ family: "Quinn" }] };
    const support = observation("o1", { basedOn: [{ reference: "ServiceRequest/sr1" }], valueQuantity: { value: 7.1, unit: "%" } });
    const input = bundle(patient(), sr, reason, doc, support);
    const orm = parseMessage(convertFromFhir(input, options("ORM^O01")).text);
    const oml = parseMessage(convertFromFhir(input, options("OML^O21")).text);
    expect(orm.segments.map((s) => s.name)).toEqual(["MSH", "PID", "ORC", "OBR", "NTE", "DG1", "OBX"]);
    expect(oml.segments.map((s) => s.name)).toEqual(["MSH", "PID", "ORC", "TQ1", "OBR", "NTE", "DG1", "OBX"]);
    expect(orm.segment("ORC")!.toString()).toBe("ORC|NW|PL-1^^1.2.840.99.3^ISO|||SC||^^^20260317070000+0100^^S||20260316100000+0100|||D7^Quinn");
    expect(oml.segment("ORC")!.toString()).toBe("ORC|NW|PL-1^^1.2.840.99.3^ISO|||SC||||20260316100000+0100|||D7^Quinn");
    expect(oml.segment("TQ1")!.toString()).toBe("TQ1|1||||||20260317070000+0100||S^^HL70485");
    for (const name of ["OBR", "NTE", "DG1", "OBX"]) expect(oml.segment(name)!.toString()).toBe(orm.segment(name)!.toString());
    expect(orm.header.field(9).text).toBe("ORM^O01^ORM_O01");
    expect(oml.header.field(9).text).toBe("OML^O21^OML_O21");
    const back = convertToFhir(orm);
    const sr2 = resourcesOf(back, "ServiceRequest")[0];
    expect(sr2).toMatchObject({ status: "active", priority: "stat", occurrenceDateTime: "2026-03-17T07:00:00+01:00", authoredOn: "2026-03-16T10:00:00+01:00", note: [{ text: "fasting" }] });
    expect(resolve(back, sr2.reasonReference[0]).code.coding[0].code).toBe("E11.9");
    expect(resolve(back, sr2.requester).identifier[0].value).toBe("D7");
    expect(resolve(back, resourcesOf(back, "Observation")[0].basedOn[0])).toBe(sr2);
  });

  it("SIU^S12: SCH, TQ1, NTE, PID and the resource group (AIS, AIG, AIL, AIP)", () => {
    const appt: Resource = {
      resourceType: "Appointment",
      id: "ap1",
      identifier: [{ system: "urn:oid:1.2.840.99.5", value: "APT-1", type: { coding: [{ code: "FILL" }] } }],
      status: "booked",
      serviceType: [{ coding: [{ system: "http://snomed.info/sct", code: "76164006", display: "Biopsy of colon" }] }],
      appointmentType: { coding: [{ code: "ROUTINE" }] },
      start: "2026-03-20T09:30:00+01:00",
      end: "2026-03-20T10:20:00+01:00",
      minutesDuration: 50,
      comment: "bowel preparation\nlight meal",
      participant: [
        { actor: { reference: "Patient/p1" }, status: "accepted" },
        { actor: { reference: "Device/dev1" }, status: "tentative" },
        { actor: { reference: "Location/l1" }, status: "accepted" },
        { actor: { reference: "Practitioner/d1" }, type: [{ coding: [{ code: "010", display: "Gastroenterologist" }] }], status: "accepted" },
      ],
    };
    const doc: Resource = { resourceType: "Practitioner", id: "d1", identifier: [{ value: "1210" }], name: [{ family: "GE", given: ["Robert"] }] };
    const room: Resource = { resourceType: "Location", id: "l1", name: "Endoscopy 2" };
    const scope: Resource = { resourceType: "Device", id: "dev1", identifier: [{ value: "5001" }], deviceName: [{ name: "Video colonoscope", type: "user-friendly-name" }] };
    const { text } = convertFromFhir(bundle(appt, patient(), doc, room, scope), options("SIU^S12"));
    expect(names(text)).toEqual(["MSH", "SCH", "TQ1", "NTE", "PID", "RGS", "AIS", "AIG", "AIL", "AIP"]);
    const m = parseMessage(text);
    expect(m.segment("SCH")!.toString()).toBe("SCH||APT-1^^1.2.840.99.5^ISO||||||ROUTINE|50|min|||||||||||||||Booked^^HL70278");
    const back = convertToFhir(m);
    const a = resourcesOf(back, "Appointment")[0];
    expect(a).toMatchObject({ status: "booked", start: "2026-03-20T09:30:00+01:00", end: "2026-03-20T10:20:00+01:00", minutesDuration: 50, comment: "bowel preparation\nlight meal" });
    expect(a.serviceType[0].coding[0].code).toBe("76164006");
    const actors = a.participant.map((p: Json) => [resolve(back, p.actor)?.resourceType, p.status]);
    expect(actors).toEqual([["Patient", "accepted"], ["Device", "tentative"], ["Location", "accepted"], ["Practitioner", "accepted"]]);
    // a participant order SIU_S12's resource group cannot hold starts another RGS, so the order comes back
    const reversed = { ...appt, participant: [...(appt.participant as Json[])].reverse() };
    const again = convertFromFhir(bundle(reversed, patient(), doc, room, scope), options("SIU^S12")).text;
    expect(names(again).slice(5)).toEqual(["RGS", "AIS", "AIP", "RGS", "AIL", "RGS", "AIG"]);
    const reread = convertToFhir(again);
    const order = resourcesOf(reread, "Appointment")[0].participant.map((p: Json) => resolve(reread, p.actor)?.resourceType);
    expect(order).toEqual(["Patient", "Practitioner", "Location", "Device"]); // the converter lists the patient (PID) first
  });

  it("MDM^T02: TXA and the document as OBX ED base64 from the Binary; T01 notifies without it", () => {
    const pdf = btoa("%PDF-1.4 not really");
    const doc: Resource = {
      resourceType: "DocumentReference",
      id: "doc1",
      masterIdentifier: { system: "urn:oid:1.2.840.99.6", value: "DOC-77" },
      status: "current",
      docStatus: "final",
      type: { coding: [{ system: LOINC, code: "11506-3", display: "Progress note" }] },
      subject: { reference: "Patient/p1" },
      date: "2026-03-16T12:00:00+01:00",
      author: [{ reference: "Practitioner/d1" }],
      content: [{ attachment: { contentType: "application/pdf", url: "Binary/b1", title: "Progress note" } }],
    };
    const bin: Resource = { resourceType: "Binary", id: "b1", contentType: "application/pdf", data: pdf };
    const author: Resource = { resourceType: "Practitioner", id: "d1", identifier: [{ value: "D7" }], name: [{ family: "Quinn" }] };
    const t02 = convertFromFhir(bundle(patient(), doc, bin, author), options("MDM^T02"));
    expect(names(t02.text)).toEqual(["MSH", "EVN", "PID", "PV1", "TXA", "OBX"]);
    const m = parseMessage(t02.text);
    const txa = m.segment("TXA")!;
    expect([2, 3, 6, 9, 12, 17, 19].map((n) => txa.field(n).text)).toEqual(["11506-3^Progress note^LN", "AP", "20260316120000+0100", "D7^Quinn", "DOC-77^^1.2.840.99.6^ISO", "AU", "AV"]);
    expect(m.segment("OBX")!.toString()).toBe(`OBX|1|ED|11506-3^Progress note^LN||^application^pdf^Base64^${pdf}||||||F`);
    const back = convertToFhir(m);
    const ref = resourcesOf(back, "DocumentReference")[0];
    expect(ref).toMatchObject({ masterIdentifier: { system: "urn:oid:1.2.840.99.6", value: "DOC-77" }, docStatus: "final", status: "current", date: "2026-03-16T12:00:00+01:00" });
    expect(resolve(back, { reference: ref.content[0].attachment.url })).toMatchObject({ resourceType: "Binary", contentType: "application/pdf", data: pdf });
    const t01 = convertFromFhir(bundle(patient(), doc, author), options("MDM^T01"));
    expect(names(t01.text)).toEqual(["MSH", "EVN", "PID", "PV1", "TXA"]);
  });
});

// ------------------------------------------------------------------ OBX values

describe("OBX value types, units, reference ranges, abnormal flags and status", () => {
  const read = (over: Json, version = "2.5.1") => {
    const { text } = convertFromFhir(bundle(patient(), observation("o1", over)), options("ORU^R01", { version }));
    const m = parseMessage(text);
    return { obx: m.segment("OBX")!, back: resourcesOf(convertToFhir(m), "Observation")[0] };
  };
  // the last columns: OBX-2, OBX-5 as written, what the converter reads back
  it.each([
    ["NM with UCUM units", { valueQuantity: { value: 5.4, unit: "mmol/L", system: UCUM, code: "mmol/L" } }, "NM", "5.4", { valueQuantity: { value: 5.4, unit: "mmol/L", system: UCUM, code: "mmol/L" } }],
    ["NM with a plain unit", { valueQuantity: { value: 12, unit: "cells" } }, "NM", "12", { valueQuantity: { value: 12, unit: "cells" } }],
    ["SN with a comparator", { valueQuantity: { value: 0.01, comparator: "<", unit: "ng/mL" } }, "SN", "<^0.01", { valueQuantity: { value: 0.01, comparator: "<", unit: "ng/mL" } }],
    ["SN range", { valueRange: { low: { value: 2, unit: "%" }, high: { value: 4, unit: "%" } } }, "SN", "^2^-^4", { valueRange: { low: { value: 2, unit: "%" }, high: { value: 4, unit: "%" } } }],
    ["SN ratio", { valueRatio: { numerator: { value: 1 }, denominator: { value: 128 } } }, "SN", "^1^:^128", { valueRatio: { numerator: { value: 1 }, denominator: { value: 128 } } }],
    ["NR one-sided", { valueRange: { low: { value: 10 } } }, "NR", "10", { valueRange: { low: { value: 10 } } }],
    ["ST", { valueString: "negative" }, "ST", "negative", { valueString: "negative" }],
    ["TX lines", { valueString: "line one\nline two" }, "TX", "line one", { valueString: "line one\nline two" }],
    ["CWE", { valueCodeableConcept: { coding: [{ system: "http://snomed.info/sct", code: "260385009", display: "Negative" }], text: "neg" } }, "CWE", "260385009^Negative^SCT^^^^^^neg", { valueCodeableConcept: { coding: [{ system: "http://snomed.info/sct", code: "260385009", display: "Negative" }], text: "neg" } }],
    ["boolean as CWE Y/N", { valueBoolean: true }, "CWE", "Y^Yes^HL70136", { valueCodeableConcept: { coding: [{ system: "http://terminology.hl7.org/CodeSystem/v2-0136", code: "Y", display: "Yes" }] } }],
    ["DT", { valueDateTime: "2026-03-01" }, "DT", "20260301", { valueDateTime: "2026-03-01" }],
    ["DTM", { valueDateTime: "2026-03-01T10:20:30+01:00" }, "DTM", "20260301102030+0100", { valueDateTime: "2026-03-01T10:20:30+01:00" }],
    ["TM", { valueTime: "10:20:30" }, "TM", "102030", { valueTime: "10:20:30" }],
    ["DR", { valuePeriod: { start: "2026-03-01T10:00:00Z", end: "2026-03-02T10:00:00Z" } }, "DR", "20260301100000+0000^20260302100000+0000", { valuePeriod: { start: "2026-03-01T10:00:00+00:00", end: "2026-03-02T10:00:00+00:00" } }],
    [
      "ED",
      { extension: [{ url: "http://hl7.org/fhir/5.0/StructureDefinition/extension-Observation.valueAttachment", valueAttachment: { contentType: "image/png", data: "iVBORw0KGgo=" } }] },
      "ED",
      "^image^png^Base64^iVBORw0KGgo=",
      { extension: [{ url: "http://hl7.org/fhir/5.0/StructureDefinition/extension-Observation.valueAttachment", valueAttachment: { contentType: "image/png", data: "iVBORw0KGgo=" } }] },
    ],
    [
      "RP",
      { extension: [{ url: "http://hl7.org/fhir/5.0/StructureDefinition/extension-Observation.valueAttachment", valueAttachment: { url: "https://pacs.example.org/wado?study=1" } }] },
      "RP",
      "https://pacs.example.org/wado?study=1",
      { extension: [{ url: "http://hl7.org/fhir/5.0/StructureDefinition/extension-Observation.valueAttachment", valueAttachment: { url: "https://pacs.example.org/wado?study=1" } }] },
    ],
  ] as [string, Json, string, string, Json][])("%s", (_name, value, type, first, expected) => {
    const { obx, back } = read(value);
    expect(obx.field(2).value).toBe(type);
    expect(obx.field(5).rep(1).text).toBe(first);
    expect(back).toMatchObject(expected);
  });

  it("writes CE before v2.5, and TS for a date-time", () => {
    expect(read({ valueCodeableConcept: { coding: [{ code: "X" }] } }, "2.4").obx.field(2).value).toBe("CE");
    expect(read({ valueDateTime: "2026-03-01T10:20:30+01:00" }, "2.4").obx.field(2).value).toBe("TS");
  });

  it("writes abnormal flags as IS before v2.7 and as CWE from v2.7, both read back as the v3 interpretation", () => {
    const interpretation = [{ coding: [{ system: "http://terminology.hl7.org/CodeSystem/v3-ObservationInterpretation", code: "HH", display: "Critical high" }] }];
    expect(read({ valueQuantity: { value: 1 }, interpretation }, "2.5.1").obx.field(8).text).toBe("HH");
    const v27 = read({ valueQuantity: { value: 1 }, interpretation }, "2.7");
    expect(v27.obx.field(8).text).toBe("HH^Critical high^HL70078");
    expect(v27.back.interpretation).toEqual(interpretation);
  });

  it("writes the status, and dataAbsentReason as N / X", () => {
    expect(read({ status: "preliminary", valueString: "x" }).back.status).toBe("preliminary");
    expect(read({ status: "corrected", valueString: "x" }).back.status).toBe("corrected");
    expect(read({ status: "entered-in-error", valueString: "x" }).obx.field(11).value).toBe("W");
    const notAsked = read({ status: "unknown", dataAbsentReason: { coding: [{ system: "http://terminology.hl7.org/CodeSystem/data-absent-reason", code: "not-asked" }] } });
    expect(notAsked.obx.field(11).value).toBe("N");
    expect(notAsked.back.dataAbsentReason.coding[0].code).toBe("not-asked");
  });
});

// ------------------------------------------------------------------ input and references

describe("the input", () => {
  it("resolves references by fullUrl, Type/id, absolute URL and conditional identifier", () => {
    const tx: Bundle = {
      resourceType: "Bundle",
      type: "transaction",
      entry: [
        { fullUrl: "urn:uuid:6b5b0c2e-0000-5000-8000-000000000001", resource: patient({ id: undefined }), request: { method: "PUT", url: `Patient?identifier=${MRN}|4711` } },
        { fullUrl: "urn:uuid:6b5b0c2e-0000-5000-8000-000000000002", resource: observation("o1", { subject: { reference: `Patient?identifier=${MRN}|4711` }, valueString: "x" }) },
      ],
    };
    expect(parseMessage(convertFromFhir(tx, options("ORU^R01")).text).get("PID-3.1")).toBe("4711");
    const bySearch: Bundle = { resourceType: "Bundle", type: "searchset", entry: [{ fullUrl: "https://fhir.example.org/r4/Observation/o1", resource: observation("o1", { subject: { reference: "https://fhir.example.org/r4/Patient/p1" }, valueString: "x" }) }, { fullUrl: "https://fhir.example.org/r4/Patient/p1", resource: patient() }] };
    expect(parseMessage(convertFromFhir(bySearch, options("ORU^R01")).text).get("PID-5.1")).toBe("Musterfrau");
  });

  it("takes one resource as input", () => {
    expect(names(convertFromFhir(patient(), options("ADT^A08")).text)).toEqual(["MSH", "EVN", "PID", "PV1"]);
  });

  it("puts the identifier the Bundle entry is matched on first in PID-3", () => {
    const p = patient({ identifier: [{ system: "urn:oid:9.9", value: "X1" }, { system: MRN, value: "4711" }] });
    const tx: Bundle = { resourceType: "Bundle", type: "transaction", entry: [{ fullUrl: "urn:uuid:1", resource: p, request: { method: "PUT", url: `Patient?identifier=${MRN}|4711` } }] };
    expect(parseMessage(convertFromFhir(tx, options("ADT^A08")).text).get("PID-3[1].1")).toBe("4711");
  });

  it("names what the message type does not carry", () => {
    const cov: Resource = { resourceType: "Coverage", id: "cv", status: "active", beneficiary: { reference: "Patient/p1" }, payor: [{ reference: "Patient/p1" }] };
    expect(convertFromFhir(bundle(patient(), cov), options("ADT^A08")).warnings).toContain("not carried by ADT^A08: Coverage");
  });
});

describe("errors name what is missing", () => {
  it.each([
    ["ADT^A08", [], "MISSING_RESOURCE", "Patient", /needs a Patient/],
    ["ADT^A01", [patient()], "MISSING_RESOURCE", "Encounter", /needs an Encounter/],
    ["ADT^A40", [patient()], "MISSING_RESOURCE", "Patient.link", /link of type replaces/],
    ["ORU^R01", [patient()], "MISSING_RESOURCE", "DiagnosticReport", /DiagnosticReport or an Observation/],
    ["ORM^O01", [patient()], "MISSING_RESOURCE", "ServiceRequest", /needs a ServiceRequest/],
    ["OML^O21", [patient()], "MISSING_RESOURCE", "ServiceRequest", /needs a ServiceRequest/],
    ["SIU^S12", [patient()], "MISSING_RESOURCE", "Appointment", /needs an Appointment/],
    ["MDM^T02", [patient()], "MISSING_RESOURCE", "DocumentReference", /needs a DocumentReference/],
    ["ADT^A08", [patient({ identifier: [] })], "MISSING_VALUE", "Patient.identifier", /PID-3/],
    ["ADT^A08", [patient({ name: [{ text: "E. M." }] })], "MISSING_VALUE", "Patient.name", /PID-5/],
    ["ORU^R01", [patient(), observation("o1", { code: undefined })], "MISSING_VALUE", "Observation.code", /OBX-3/],
    ["MDM^T02", [patient(), { resourceType: "DocumentReference", id: "d", status: "current", subject: { reference: "Patient/p1" }, content: [{ attachment: {} }] }], "MISSING_VALUE", "DocumentReference.type", /TXA-2/],
    ["MDM^T02", [patient(), { resourceType: "DocumentReference", id: "d", status: "current", type: { text: "Note" }, subject: { reference: "Patient/p1" }, content: [{ attachment: { url: "Binary/none" } }] }], "MISSING_VALUE", "DocumentReference.content.attachment", /OBX-5/],
    ["ORU^R01", [patient(), observation("o1", { subject: { reference: "Patient/p2" } })], "MISSING_RESOURCE", "Patient", /is not in the input/],
    ["ORU^R01", [patient(), patient({ id: "p2" }), observation("o1", { valueString: "a" }), observation("o2", { subject: { reference: "Patient/p2" }, valueString: "b" })], "INVALID_INPUT", "Observation", /another patient/],
  ] as [string, Resource[], string, string, RegExp][])("%s: %s", (type, resources, code, path, message) => {
    const e = encodingError(() => convertFromFhir(bundle(...resources), options(type)));
    expect(e.code).toBe(code);
    expect(e.path).toBe(path);
    expect(e.message).toMatch(message);
  });

  it("refuses a message type it does not build, input that is not FHIR, and a version it does not write", () => {
    expect(encodingError(() => convertFromFhir(bundle(patient()), options("VXU^V04"))).code).toBe("UNSUPPORTED_MESSAGE_TYPE");
    expect(encodingError(() => convertFromFhir("MSH|...", options("ADT^A08"))).code).toBe("INVALID_INPUT");
    expect(encodingError(() => convertFromFhir(bundle(patient()), options("ADT^A08", { version: "3.0" }))).path).toBe("msh.version");
    expect(encodingError(() => convertFromFhir(bundle(patient()), options("ADT^A08", { timestamp: "yesterday" }))).path).toBe("msh.timestamp");
  });
});
