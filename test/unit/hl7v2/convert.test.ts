import { describe, expect, it } from "vitest";
import type { Bundle, Resource } from "../../../src/features/fhir/port";
import { convertToFhir, convertToFhirWithReport, isSupportedMessage } from "../../../src/standards/hl7v2/convert/index";
import { Hl7ConversionError } from "../../../src/standards/hl7v2/errors";
import { parseMessage } from "../../../src/standards/hl7v2/parse";
import { validateResource } from "../../../src/features/fhir/validate";
import { checkBundle, entriesOf, fixture, fixtureNames, type Json, resolve, resourcesOf } from "./support";

const FAMILIES = new Set(["ADT", "ORU", "ORM", "SIU", "MDM", "DFT"]);
const b64decode = (s: string) => new TextDecoder().decode(Uint8Array.from(atob(s), (c) => c.charCodeAt(0)));

function conversionError(f: () => unknown): Hl7ConversionError {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(Hl7ConversionError);
    return e as Hl7ConversionError;
  }
  throw new Error("expected an Hl7ConversionError");
}

describe("every sample of the six families converts to a structurally valid transaction Bundle", () => {
  const samples = fixtureNames().filter((n) => FAMILIES.has(parseMessage(fixture(n)).messageType));
  it("covers the samples of all six families", () => {
    const families = new Set(samples.map((n) => parseMessage(fixture(n)).messageType));
    expect([...families].sort()).toEqual(["ADT", "DFT", "MDM", "ORM", "ORU", "SIU"]);
    expect(samples.length).toBeGreaterThanOrEqual(100);
  });
  it.each(samples)("%s", (name) => {
    const m = parseMessage(fixture(name));
    const bundle = convertToFhir(m);
    expect(checkBundle(bundle, m.controlId)).toEqual([]);
    // The FHIR store's validator (base R4 definitions) accepts every resource of the Bundle.
    const invalid = (bundle.entry ?? []).flatMap((e) => validateResource(e.resource).map((i) => `${e.resource?.resourceType}: ${i.path} ${i.message}`));
    expect(invalid).toEqual([]);
    expect(entriesOf(bundle, "Patient").length).toBeGreaterThanOrEqual(1);
    // deterministic: the same input gives the same Bundle
    expect(convertToFhir(fixture(name))).toEqual(bundle);
  });
  it("other message types are refused with a typed error", () => {
    for (const name of ["VXU-V04-01.hl7", "BAR-P01-01.hl7", "OML-O21-01.hl7", "PC1-Problem-Add-v2.3.1.hl7"]) {
      const e = conversionError(() => convertToFhir(fixture(name)));
      expect(e.code).toBe("UNSUPPORTED_MESSAGE_TYPE");
      expect(e.message).toMatch(/not supported/);
    }
    expect(isSupportedMessage("ORU", "R01")).toBe(true);
    expect(isSupportedMessage("ORU", "R30")).toBe(false);
    expect(isSupportedMessage("ADT", "A40")).toBe(true);
  });
  it("messages without PID or control id are refused with a typed error", () => {
    const noPid = "MSH|^~\\&|A|B|C|D|20240101||ADT^A01|X1|P|2.5\rEVN|A01";
    expect(conversionError(() => convertToFhir(noPid)).code).toBe("MISSING_SEGMENT");
    const noId = "MSH|^~\\&|A|B|C|D|20240101||ADT^A01||P|2.5\rPID|1||1^^^H^MR";
    expect(conversionError(() => convertToFhir(noId)).code).toBe("INVALID_MESSAGE");
    const siuNoSch = "MSH|^~\\&|A|B|C|D|20240101||SIU^S12|X2|P|2.5\rPID|1||1^^^H^MR";
    expect(conversionError(() => convertToFhir(siuNoSch)).code).toBe("MISSING_SEGMENT");
  });
});

// ------------------------------------------------------------------ golden tests

describe("golden: ADT^A01 (ADT-A01-01.hl7)", () => {
  const bundle = convertToFhir(fixture("ADT-A01-01.hl7"));
  const patientEntry = entriesOf(bundle, "Patient")[0]!;
  const patient = patientEntry.resource as Json;
  it("creates or updates the Patient, matched on identifier and assigning authority", () => {
    expect(patientEntry.request).toEqual({ method: "PUT", url: "Patient?identifier=urn:oid:2.16.1|PATID1234" });
    expect(patient.identifier).toContainEqual(expect.objectContaining({ system: "urn:oid:2.16.1", value: "PATID1234", type: { coding: [{ system: "http://terminology.hl7.org/CodeSystem/v2-0203", code: "MR" }] } }));
    expect(patient.identifier).toContainEqual(expect.objectContaining({ system: "http://hl7.org/fhir/sid/us-ssn", value: "123456789" }));
    expect(patient.identifier).toContainEqual(expect.objectContaining({ system: "urn:hl7v2:authority:test2", value: "PATID567" }));
  });
  it("maps names, sex, birth, address, telecom and marital status", () => {
    expect(patient.name[0]).toEqual({ use: "usual", family: "EVERYMAN", given: ["ADAM", "A"], prefix: ["Dr."], suffix: ["III", "MD", "PF"], period: { start: "1924-10-12" } });
    expect(patient.name[1]).toMatchObject({ use: "official", family: "Josh", given: ["stanley"], period: { start: "1924-10-10", end: "1924-10-15" } });
    expect(patient.gender).toBe("male");
    expect(patient.birthDate).toBe("1988-08-18");
    expect(patient._birthDate.extension[0]).toEqual({ url: "http://hl7.org/fhir/StructureDefinition/patient-birthTime", valueDateTime: "1988-08-18T11:26:00+02:15" });
    expect(patient.address[0]).toMatchObject({ line: ["1000", "Hospital Lane", "Ste. 123", "Near Highway"], city: "Ann Arbor", state: "MI", postalCode: "99999", country: "USA" });
    expect(patient.telecom[0]).toMatchObject({ system: "phone", value: "2222", use: "mobile", rank: 18 });
    expect(patient.maritalStatus.coding[0]).toEqual({ system: "http://terminology.hl7.org/CodeSystem/v3-MaritalStatus", code: "M", display: "Married" });
    expect(patient.deceasedDateTime).toBe("2008-08-25T11:16:30+01:15");
    expect(patient.multipleBirthInteger).toBe(2);
  });
  it("creates the Encounter keyed on the visit number, with participants and locations", () => {
    const e = entriesOf(bundle, "Encounter")[0]!;
    const enc = e.resource as Json;
    expect(e.request).toEqual({ method: "PUT", url: "Encounter?identifier=urn:oid:1.2|40007716" });
    expect(enc.identifier[0]).toMatchObject({ system: "urn:oid:1.2", value: "40007716", type: { coding: [{ code: "VN" }] } });
    expect(enc.status).toBe("in-progress");
    expect(enc.class).toEqual({ system: "http://terminology.hl7.org/CodeSystem/v3-ActCode", code: "PRENC", display: "pre-admission" });
    expect(enc.subject.reference).toBe(patientEntry.fullUrl);
    const attender = enc.participant.find((p: Json) => p.type[0].coding[0].code === "ATND");
    const practitioner = resolve(bundle, attender.individual);
    expect(practitioner.resourceType).toBe("Practitioner");
    expect(practitioner.identifier[0]).toMatchObject({ system: "urn:oid:1.23", value: "1122334" });
    expect(practitioner.name[0]).toMatchObject({ family: "Alaz", given: ["Mohammed", "Mahi"] });
    const loc = resolve(bundle, enc.location[0].location);
    expect(loc.resourceType).toBe("Location");
    expect(loc.name).toContain("HUH AE OMU");
  });
  it("maps AL1, DG1, PR1, IN1, NK1 and OBX with references to the Patient", () => {
    const allergy = resourcesOf(bundle, "AllergyIntolerance")[0];
    expect(allergy).toMatchObject({ category: ["environment"], criticality: "low", code: { coding: [{ code: "P", display: "PENICILLIN" }] }, onsetDateTime: "2021-08-24" });
    expect(allergy.patient.reference).toBe(patientEntry.fullUrl);
    const condition = resourcesOf(bundle, "Condition")[0];
    expect(condition.code.coding[0]).toEqual({ system: "http://snomed.info/sct", code: "422504002", display: "Ischemic stroke(disorder)" });
    expect(condition.onsetDateTime).toBe("2004-01-25T11:40:25+04:20");
    const procedure = resourcesOf(bundle, "Procedure")[0];
    expect(procedure.code.coding[0]).toMatchObject({ system: "http://snomed.info/sct", code: "76164006" });
    const coverage = resourcesOf(bundle, "Coverage")[0];
    expect(resolve(bundle, coverage.payor[0]).name).toBe("Blue Cross Blue Shield of Texas");
    expect(coverage.period).toEqual({ start: "1989-10-01", end: "2050-10-01" });
    const related = resourcesOf(bundle, "RelatedPerson")[0];
    expect(related.name[0]).toMatchObject({ family: "Evan", given: ["ADAM", "A"] });
    expect(related.patient.reference).toBe(patientEntry.fullUrl);
    const obs = resourcesOf(bundle, "Observation")[0];
    expect(obs.code.coding[0]).toEqual({ system: "http://loinc.org", code: "8867-4", display: "heartrate" });
    expect(obs.valueQuantity).toEqual({ value: 60, unit: "beats/min" });
    expect(obs.referenceRange[0]).toMatchObject({ low: { value: 70 }, high: { value: 80 }, text: "70-80" });
  });
  it("carries Provenance back to the message", () => {
    const prov = resourcesOf(bundle, "Provenance")[0];
    expect(prov.entity[0]).toEqual({ role: "source", what: { identifier: { system: "urn:hl7v2:message:ADTApp:GHHSFacility", value: "MSG00001" }, display: "HL7 v2 ADT^A01 message MSG00001" } });
    expect(prov.recorded).toBe("1989-08-18T11:26:00+02:15");
    expect(prov.activity.coding[0]).toEqual({ system: "http://terminology.hl7.org/CodeSystem/v2-0003", code: "A01" });
    expect(prov.target.length).toBe(bundle.entry!.length - 1);
    expect(resolve(bundle, prov.agent[0].who).resourceType).toBe("Device");
  });
});

describe("golden: ORU^R01 (LAB-ORU-1.hl7)", () => {
  const bundle = convertToFhir(fixture("LAB-ORU-1.hl7"));
  const reports = entriesOf(bundle, "DiagnosticReport");
  it("makes one DiagnosticReport per OBR, keyed on the filler order number", () => {
    expect(reports.map((e) => e.request)).toEqual([
      { method: "PUT", url: "DiagnosticReport?identifier=urn:hl7v2:authority:SomeSystem|82503246" },
      { method: "PUT", url: "DiagnosticReport?identifier=urn:hl7v2:authority:SomeSystem|890775544" },
    ]);
    const dr = reports[0]!.resource as Json;
    expect(dr.status).toBe("final");
    expect(dr.code.coding[0]).toEqual({ system: "http://loinc.org", code: "24317-0", display: "Hemogram and platelet count, automated" });
    expect(dr.result.length).toBe(5);
    expect(resolve(bundle, dr.subject).name[0]).toMatchObject({ family: "DUCK", given: ["DONALD", "D"] });
    expect(resolve(bundle, dr.basedOn[0]).identifier[0]).toMatchObject({ value: "88502218", type: { coding: [{ code: "PLAC" }] } });
  });
  it("maps OBX values with units, status, time and identifiers derived from the order", () => {
    const dr = reports[0]!.resource as Json;
    const ery = resolve(bundle, dr.result[1]);
    expect(ery.identifier[0]).toEqual({ system: "urn:hl7v2:authority:SomeSystem", value: "82503246-2" });
    expect(ery.code.coding[0]).toEqual({ system: "http://loinc.org", code: "11273-0", display: "ERYTHROCYTES" });
    expect(ery.valueQuantity).toEqual({ value: 4.06, unit: "tera.l-1" });
    expect(ery.status).toBe("preliminary");
    expect(ery.effectiveDateTime).toBe("2014-10-06T06:27:00+07:00");
    expect(ery.interpretation[0].coding[0]).toEqual({ system: "http://terminology.hl7.org/CodeSystem/v3-ObservationInterpretation", code: "N" });
    const leuko = resolve(bundle, dr.result[0]);
    expect(leuko.status).toBe("registered");
    expect(leuko.valueQuantity).toBeUndefined();
    const neut = resolve(bundle, (reports[1]!.resource as Json).result[0]);
    expect(neut.valueQuantity).toEqual({ value: 72, unit: "%" });
  });
  it("does not overwrite the Patient from a result feed (create if missing)", () => {
    expect(entriesOf(bundle, "Patient")[0]!.request).toEqual({ method: "POST", url: "Patient", ifNoneExist: "identifier=urn:hl7v2:authority:1|10006579" });
  });
});

describe("golden: ORM^O01 (ORM-O01-02.hl7)", () => {
  const bundle = convertToFhir(fixture("ORM-O01-02.hl7"));
  it("creates or updates the ServiceRequest keyed on the placer order number", () => {
    const e = entriesOf(bundle, "ServiceRequest")[0]!;
    const sr = e.resource as Json;
    expect(e.request).toEqual({ method: "PUT", url: "ServiceRequest?identifier=urn:hl7v2:authority:GHHPlacer|1101" });
    expect(sr.identifier[1]).toMatchObject({ system: "urn:hl7v2:authority:GHHFiller", value: "1201", type: { coding: [{ code: "FILL" }] } });
    expect(sr).toMatchObject({ status: "active", intent: "order", authoredOn: "2021-10-20T11:26:00+02:15", note: [{ text: "CT Scan to be done urgent" }] });
    expect(sr.code.coding[0]).toEqual({ system: "http://loinc.org", code: "24725-4", display: "CT Head" });
    expect(resolve(bundle, sr.requester).name[0]).toMatchObject({ family: "ORDPROVIDER", given: ["JONES", "A"] });
    expect(resolve(bundle, sr.encounter).resourceType).toBe("Encounter");
    expect(resolve(bundle, sr.reasonReference[0]).resourceType).toBe("Condition");
  });
});

describe("golden: SIU^S12 (SIU-S12-01.hl7)", () => {
  const bundle = convertToFhir(fixture("SIU-S12-01.hl7"));
  const e = entriesOf(bundle, "Appointment")[0]!;
  const appt = e.resource as Json;
  it("creates or updates the Appointment keyed on the filler appointment id", () => {
    expect(e.request).toEqual({ method: "PUT", url: "Appointment?identifier=urn:hl7v2:authority:GHHSFacility|36996" });
    expect(appt.status).toBe("booked");
    expect(appt.start).toBe("2020-10-01T11:26:00+02:15");
    expect(appt.end).toBe("2020-10-09T11:26:00+02:15");
    expect(appt.reasonCode[0].coding[0]).toEqual({ system: "http://terminology.hl7.org/CodeSystem/v2-0276", code: "EMERGENCY" });
    expect(appt.serviceType[0].coding[0]).toEqual({ system: "http://snomed.info/sct", code: "76164006", display: "Biopsy of colon (procedure)" });
    expect(appt.comment).toContain("Appointment booked for emergency procedure");
  });
  it("lists the patient, the practitioner (AIP), the location (AIL) and the equipment (AIG)", () => {
    const kinds = appt.participant.map((p: Json) => resolve(bundle, p.actor).resourceType);
    expect(kinds).toEqual(["Patient", "Device", "Location", "Practitioner"]);
    const aip = resolve(bundle, appt.participant[3].actor);
    expect(aip.name[0]).toMatchObject({ family: "GE", given: ["Robert", "C"] });
    expect(appt.participant.every((p: Json) => p.status === "accepted")).toBe(true);
  });
});

describe("golden: MDM^T02 (MDM-T02-03.hl7)", () => {
  const bundle = convertToFhir(fixture("MDM-T02-03.hl7"));
  const docEntry = entriesOf(bundle, "DocumentReference")[0]!;
  const doc = docEntry.resource as Json;
  it("creates the DocumentReference keyed on the unique document number, with the body in a Binary", () => {
    expect(docEntry.request).toEqual({ method: "PUT", url: "DocumentReference?identifier=urn:hl7v2:authority:SFAC|2RWRVAJ627408" });
    expect(doc.masterIdentifier).toEqual({ system: "urn:hl7v2:authority:SFAC", value: "2RWRVAJ627408" });
    expect(doc).toMatchObject({ status: "current", docStatus: "preliminary", date: "2021-08-03T00:00:00+02:15" });
    expect(doc.type.coding[0]).toEqual({ system: "http://terminology.hl7.org/CodeSystem/v2-0270", code: "DS" });
    const binary = resolve(bundle, { reference: doc.content[0].attachment.url });
    expect(binary.resourceType).toBe("Binary");
    expect(binary.contentType).toBe("text/plain; charset=utf-8");
    const text = b64decode(binary.data);
    expect(text.split("\n").length).toBe(29);
    expect(text.startsWith("Toilet cylinder crackers")).toBe(true);
    expect(entriesOf(bundle, "Binary")[0]!.request).toEqual({ method: "PUT", url: `Binary/${binary.id}` });
    expect(resolve(bundle, doc.subject).name[0]).toMatchObject({ family: "Clark", given: ["Frederick"] });
    expect(resourcesOf(bundle, "Observation")).toEqual([]);
  });
  it("decodes a base64 ED body as is (MDM-T02-01.hl7 has an empty one: no Binary)", () => {
    const text = fixture("MDM-T02-01.hl7").replace("^application^pdf^Base64^", "^application^pdf^Base64^JVBERi0xLjQK");
    const b = convertToFhir(text);
    const bin = resourcesOf(b, "Binary")[0];
    expect(bin).toMatchObject({ contentType: "application/pdf", data: "JVBERi0xLjQK" });
    expect(resourcesOf(convertToFhir(fixture("MDM-T02-01.hl7")), "Binary")).toEqual([]);
  });
});

describe("golden: DFT^P03 (DFT-P03-01.hl7)", () => {
  const bundle = convertToFhir(fixture("DFT-P03-01.hl7"));
  it("maps FT1 to ChargeItem", () => {
    const [first, second] = entriesOf(bundle, "ChargeItem");
    expect(first!.request).toEqual({ method: "PUT", url: "ChargeItem?identifier=urn:hl7v2:authority:GHHSFacility|12345" });
    const ci = first!.resource as Json;
    expect(ci).toMatchObject({ status: "billable", occurrenceDateTime: "2019-11-22", quantity: { value: 2 }, priceOverride: { value: 100, currency: "USD" } });
    expect(ci.code.coding[0]).toEqual({ system: "http://www.ama-assn.org/go/cpt", code: "71045", display: "Xray exam chest 1 view" });
    expect(ci.reason.map((r: Json) => r.coding[0].code)).toEqual(["29857009", "68235000"]);
    expect(resolve(bundle, ci.context).resourceType).toBe("Encounter");
    expect(resolve(bundle, ci.performer[0].actor).identifier[0]).toEqual({ system: "urn:oid:2.16.840.1.113883.4.6", value: "9941339108", type: { coding: [{ system: "http://terminology.hl7.org/CodeSystem/v2-0203", code: "NPI" }] } });
    // FT1 without a transaction id: keyed on the message and set id
    expect(second!.request!.url).toBe("ChargeItem?identifier=urn:hl7v2:message:IMMAPP:GHHSFacility|MSG00001/FT1/2");
  });
});

// ------------------------------------------------------------------ idempotency

/** A tiny FHIR server for transactions: conditional create/update on identifier=system|value, PUT by id. */
function applyTransaction(store: Map<string, Resource[]>, bundle: Bundle): void {
  const resolved = new Map<string, string>();
  const find = (type: string, query: string) => {
    const m = /^identifier=(.*)$/.exec(query)!;
    const raw = decodeURIComponent(m[1]!);
    const bar = raw.search(/(?<!\\)\|/);
    const unesc = (s: string) => s.replace(/\\([\\|$,])/g, "$1");
    const [system, value] = bar < 0 ? [undefined, unesc(raw)] : [unesc(raw.slice(0, bar)), unesc(raw.slice(bar + 1))];
    const hits = (store.get(type) ?? []).filter((r) =>
      [...((r.identifier as Json[]) ?? []), ...(r.masterIdentifier ? [r.masterIdentifier] : [])].some((i: Json) => i.value === value && (system === undefined || i.system === system)),
    );
    expect(hits.length).toBeLessThanOrEqual(1);
    return hits[0];
  };
  let next = (store.get("__n")?.length ?? 0) + 1;
  for (const e of bundle.entry ?? []) {
    const r = structuredClone(e.resource!);
    const type = r.resourceType;
    const list = store.get(type) ?? [];
    store.set(type, list);
    const req = e.request!;
    let id: string;
    if (req.method === "POST") {
      const hit = find(type, req.ifNoneExist!);
      if (hit) id = hit.id!;
      else {
        id = `${type}-${next++}`;
        list.push({ ...r, id });
      }
    } else if (req.url.includes("?")) {
      const hit = find(type, req.url.slice(req.url.indexOf("?") + 1));
      id = hit?.id ?? `${type}-${next++}`;
      if (hit) list.splice(list.indexOf(hit), 1, { ...r, id });
      else list.push({ ...r, id });
    } else {
      id = req.url.split("/")[1]!;
      const at = list.findIndex((x) => x.id === id);
      if (at >= 0) list.splice(at, 1, r);
      else list.push(r);
    }
    resolved.set(e.fullUrl!, `${type}/${id}`);
  }
  store.set("__n", Array.from({ length: next - 1 }, () => ({ resourceType: "n" })));
}

const count = (store: Map<string, Resource[]>) => Object.fromEntries([...store].filter(([k]) => k !== "__n").map(([k, v]) => [k, v.length]));

describe("idempotency expressed in the Bundle", () => {
  it("re-sending the same ADT^A01 (same MSH-10) creates nothing twice", () => {
    const store = new Map<string, Resource[]>();
    applyTransaction(store, convertToFhir(fixture("ADT-A01-01.hl7")));
    const once = count(store);
    expect(once.Patient).toBe(1);
    expect(once.Encounter).toBe(1);
    applyTransaction(store, convertToFhir(fixture("ADT-A01-01.hl7")));
    expect(count(store)).toEqual(once);
  });
  it.each(["LAB-ORU-1.hl7", "ORM-O01-02.hl7", "SIU-S12-01.hl7", "MDM-T02-03.hl7", "DFT-P03-01.hl7", "ADT-A40-01.hl7"])("re-sending %s creates nothing twice", (name) => {
    const store = new Map<string, Resource[]>();
    applyTransaction(store, convertToFhir(fixture(name)));
    const once = count(store);
    applyTransaction(store, convertToFhir(fixture(name)));
    expect(count(store)).toEqual(once);
  });
  it("an A08 update for the same patient and visit (new MSH-10) updates rather than duplicates", () => {
    const a01 = "MSH|^~\\&|ADT|HOSP|EHR|HOSP|20240101120000+0100||ADT^A01^ADT_A01|M1|P|2.5.1\rPID|1||555^^^HOSP^MR||DOE^JANE||19800101|F\rPV1|1|I|W1^R1^B1||||123^SMITH^ANNA||||||||||||V100^^^HOSP^VN|||||||||||||||||||||||||20240101110000+0100";
    const a08 = a01.replace("ADT^A01^ADT_A01|M1", "ADT^A08^ADT_A01|M2").replace("DOE^JANE", "DOE^JANE^MARIE");
    const store = new Map<string, Resource[]>();
    applyTransaction(store, convertToFhir(a01));
    applyTransaction(store, convertToFhir(a08));
    expect(count(store).Patient).toBe(1);
    expect(count(store).Encounter).toBe(1);
    expect((store.get("Patient")![0] as Json).name[0].given).toEqual(["JANE", "MARIE"]);
  });
  it("fullUrls are derived from MSH-10: another control id gives other fullUrls but the same conditions", () => {
    const a = convertToFhir(fixture("ADT-A01-01.hl7"));
    const b = convertToFhir(fixture("ADT-A01-01.hl7").replace("|MSG00001|", "|MSG00002|"));
    expect(a.entry![0]!.fullUrl).not.toBe(b.entry![0]!.fullUrl);
    const conditions = (x: Bundle) => x.entry!.filter((e) => e.request!.method === "PUT" && e.request!.url.includes("?")).map((e) => e.request!.url);
    expect(conditions(a)).toEqual(conditions(b));
  });
});

// ------------------------------------------------------------------ events, data types, options

const MSH = (type: string, id = "C1", version = "2.5.1") => `MSH|^~\\&|LAB|HOSP^2.16.840.1.113883.19.5^ISO|EHR|HOSP|20240315083000-0500||${type}|${id}|P|${version}`;
const PID = "PID|1||MRN1^^^HOSP&2.16.840.1.113883.19.5&ISO^MR||Smith^John^Q^Jr^Dr||19700615|M|||1 Main St^Apt 2^Springfield^IL^62701^USA^H||^PRN^PH^^1^217^5551234^12~^NET^Internet^john@example.org";

describe("ADT events", () => {
  const adt = (event: string, pv1: string) => convertToFhir([MSH(`ADT^${event}^ADT_A01`), `EVN|${event}|20240315083000`, PID, pv1].join("\r"));
  const enc = (b: Bundle) => resourcesOf(b, "Encounter")[0];
  it.each([
    ["A01", "in-progress"],
    ["A02", "in-progress"],
    ["A03", "finished"],
    ["A04", "planned"],
    ["A05", "planned"],
    ["A11", "cancelled"],
    ["A13", "in-progress"],
  ])("%s → Encounter.status %s", (event, status) => {
    expect(enc(adt(event, "PV1|1|I|W1|||||||||||||||||V9^^^HOSP^VN")).status).toBe(status);
  });
  it("A08 takes the status from PV1 (discharge date → finished)", () => {
    expect(enc(adt("A08", "PV1|1|E|W1|||||||||||||||||V9^^^HOSP^VN|||||||||||||||||||||||||20240310|20240312")).status).toBe("finished");
    expect(enc(adt("A08", "PV1|1|P")).status).toBe("planned");
  });
  it("without a visit number the Encounter is keyed on the message and only created", () => {
    const e = entriesOf(adt("A01", "PV1|1|I|W1"), "Encounter")[0]!;
    expect(e.request).toEqual({ method: "POST", url: "Encounter", ifNoneExist: "identifier=urn:hl7v2:message:LAB:HOSP|C1/PV1" });
  });
  it("A28/A31 are about the person: no Encounter", () => {
    expect(resourcesOf(adt("A28", "PV1|1|N"), "Encounter")).toEqual([]);
    expect(resourcesOf(adt("A31", "PV1|1|I|W1"), "Encounter")).toEqual([]);
  });
  it("A40 marks the old Patient replaced-by the surviving one, which replaces it", () => {
    const b = convertToFhir(fixture("ADT-A40-01.hl7"));
    const [survivor, old] = entriesOf(b, "Patient");
    expect(survivor!.request!.url).toBe("Patient?identifier=urn:hl7v2:authority:BCBS|12345");
    expect(old!.request!.url).toBe("Patient?identifier=urn:hl7v2:authority:BCBS|56789");
    expect((survivor!.resource as Json).link).toEqual([{ other: { reference: old!.fullUrl }, type: "replaces" }]);
    expect((old!.resource as Json).link).toEqual([{ other: { reference: survivor!.fullUrl }, type: "replaced-by" }]);
    expect((old!.resource as Json).active).toBe(false);
  });
});

describe("data types", () => {
  const b = convertToFhir([MSH("ADT^A04^ADT_A01"), PID, "PV1|1|O"].join("\r"));
  const patient = resourcesOf(b, "Patient")[0];
  it("CX: an OID authority becomes urn:oid:", () => {
    expect(patient.identifier[0]).toMatchObject({ system: "urn:oid:2.16.840.1.113883.19.5", value: "MRN1" });
  });
  it("XPN, XAD and XTN (phone parts and e-mail)", () => {
    expect(patient.name[0]).toEqual({ family: "Smith", given: ["John", "Q"], suffix: ["Jr"], prefix: ["Dr"] });
    expect(patient.address[0]).toEqual({ use: "home", line: ["1 Main St", "Apt 2"], city: "Springfield", state: "IL", postalCode: "62701", country: "USA" });
    expect(patient.telecom).toEqual([
      { system: "phone", value: "+1 217 5551234 X12", use: "home" },
      { system: "email", value: "john@example.org" },
    ]);
  });
  it("times without a zone take MSH-7's offset; dates keep their precision", () => {
    expect(resourcesOf(b, "Provenance")[0].recorded).toBe("2024-03-15T08:30:00-05:00");
    expect(patient.birthDate).toBe("1970-06-15");
    const p = convertToFhir([MSH("ADT^A04^ADT_A01"), PID.replace("19700615", "197006"), "PV1|1|O||||||||||||||||||||||||||||||||||||||||||2024031508"].join("\r"));
    expect(resourcesOf(p, "Patient")[0].birthDate).toBe("1970-06");
    expect(resourcesOf(p, "Encounter")[0].period.start).toBe("2024-03-15T08:00:00-05:00");
  });
  it("invalid dates are left out with a warning", () => {
    const r = convertToFhirWithReport([MSH("ADT^A04^ADT_A01"), PID.replace("19700615", "19701345"), "PV1|1|O"].join("\r"));
    expect(resourcesOf(r.bundle, "Patient")[0].birthDate).toBeUndefined();
    expect(r.warnings.join()).toMatch(/19701345/);
  });
  it("authorities without a URI use the configured namespace or map", () => {
    const text = [MSH("ADT^A04^ADT_A01"), "PID|1||42^^^CITYHOSP^MR~43^^^OTHER^PI||X^Y", "PV1|1|O"].join("\r");
    expect(resourcesOf(convertToFhir(text), "Patient")[0].identifier[0].system).toBe("urn:hl7v2:authority:CITYHOSP");
    const mapped = convertToFhir(text, { systemBase: "https://fhir.example.org/sid", authorities: { CITYHOSP: "https://cityhosp.example.org/mrn" } });
    const ids = resourcesOf(mapped, "Patient")[0].identifier;
    expect(ids[0].system).toBe("https://cityhosp.example.org/mrn");
    expect(ids[1].system).toBe("https://fhir.example.org/sid/authority/OTHER");
    // no authority at all: the sending facility's namespace
    const bare = convertToFhir([MSH("ADT^A04^ADT_A01"), "PID|1||77||X^Y", "PV1|1|O"].join("\r"));
    expect(resourcesOf(bare, "Patient")[0].identifier[0].system).toBe("urn:hl7v2:authority:HOSP");
  });
});

describe("OBX value types", () => {
  const oru = (...obx: string[]) =>
    resourcesOf(convertToFhir([MSH("ORU^R01^ORU_R01"), PID, "OBR|1|P1^EHR|F1^LAB|24331-1^Lipid panel^LN|||20240315080000", ...obx].join("\r")), "Observation");
  it("NM with UCUM units → valueQuantity with system and code", () => {
    const [o] = oru("OBX|1|NM|2093-3^Cholesterol^LN||196|mg/dL^milligram per deciliter^UCUM|<200|N|||F");
    expect(o.valueQuantity).toEqual({ value: 196, unit: "milligram per deciliter", system: "http://unitsofmeasure.org", code: "mg/dL" });
    expect(o.referenceRange[0].text).toBe("<200");
    expect(o.effectiveDateTime).toBe("2024-03-15T08:00:00-05:00");
    expect(o.identifier[0]).toEqual({ system: "urn:hl7v2:authority:LAB", value: "F1-1" });
  });
  it("SN → Quantity with comparator, Range, Ratio", () => {
    const [lt, range, ratio, text] = oru(
      "OBX|1|SN|1^A^LN||<^5|mmol/L^^UCUM|||||F",
      "OBX|2|SN|2^B^LN||^10^-^20|mg^^UCUM|||||F",
      "OBX|3|SN|3^C^LN||^1^:^128||||||F",
      "OBX|4|SN|4^D^LN||<>^3||||||F",
    );
    expect(lt.valueQuantity).toEqual({ value: 5, comparator: "<", unit: "mmol/L", system: "http://unitsofmeasure.org", code: "mmol/L" });
    expect(range.valueRange).toEqual({ low: { value: 10, unit: "mg", system: "http://unitsofmeasure.org", code: "mg" }, high: { value: 20, unit: "mg", system: "http://unitsofmeasure.org", code: "mg" } });
    expect(ratio.valueRatio).toEqual({ numerator: { value: 1 }, denominator: { value: 128 } });
    expect(text.valueString).toBe("<> 3");
  });
  it("ST/TX/FT → valueString (escapes decoded, repetitions as lines)", () => {
    const [st, tx] = oru("OBX|1|ST|1^A^LN||Salmonella \\T\\ Shigella||||||F", "OBX|2|FT|2^B^LN||line one\\.br\\line two~line three||||||F");
    expect(st.valueString).toBe("Salmonella & Shigella");
    expect(tx.valueString).toBe("line one\nline two\nline three");
  });
  it("CWE → valueCodeableConcept with mapped systems", () => {
    const [o] = oru("OBX|1|CWE|600-7^Culture^LN||27268008^Salmonella^SCT^SAL^Salmonella sp^L^^^Salmonella species||||||F");
    expect(o.valueCodeableConcept).toEqual({
      coding: [
        { system: "http://snomed.info/sct", code: "27268008", display: "Salmonella" },
        { system: "urn:hl7v2:codesystem:L", code: "SAL", display: "Salmonella sp" },
      ],
      text: "Salmonella species",
    });
  });
  it("DT/DTM/TM, NR, ED and RP", () => {
    const [dtm, tm, nr, ed, rp, nmText] = oru(
      "OBX|1|DTM|1^A^LN||20240301101500+0100||||||F",
      "OBX|2|TM|2^B^LN||1015||||||F",
      "OBX|3|NR|3^C^LN||1^5||||||F",
      "OBX|4|ED|4^D^LN||LAB^application^pdf^Base64^JVBERi0=||||||F",
      "OBX|5|RP|5^E^LN||https://img.example.org/1^^IMAGE^JPEG||||||F",
      "OBX|6|NM|6^F^LN||>10||||||F",
    );
    expect(dtm.valueDateTime).toBe("2024-03-01T10:15:00+01:00");
    expect(tm.valueTime).toBe("10:15:00");
    expect(nr.valueRange).toEqual({ low: { value: 1 }, high: { value: 5 } });
    expect(ed.extension[0]).toEqual({ url: "http://hl7.org/fhir/5.0/StructureDefinition/extension-Observation.valueAttachment", valueAttachment: { contentType: "application/pdf", data: "JVBERi0=" } });
    expect(rp.extension[0].valueAttachment).toEqual({ url: "https://img.example.org/1" });
    expect(nmText.valueString).toBe(">10");
  });
  it("NTE after an OBX becomes its note; same set id twice stays unique", () => {
    const [a, b] = oru("OBX|1|ST|1^A^LN||x||||||F", "NTE|1||first note", "OBX|1|ST|1^A^LN||y||||||F");
    expect(a.note).toEqual([{ text: "first note" }]);
    expect(a.identifier[0].value).toBe("F1-1");
    expect(b.identifier[0].value).toBe("F1-1/2");
    expect(b.valueString).toBe("y");
  });
});

describe("options", () => {
  it("adds a MessageHeader on request", () => {
    const b = convertToFhir(fixture("ADT-A01-01.hl7"), { messageHeader: true });
    const mh = resourcesOf(b, "MessageHeader")[0];
    expect(mh.eventCoding).toEqual({ system: "http://terminology.hl7.org/CodeSystem/v2-0003", code: "A01" });
    expect(mh.source.name).toBe("ADTApp");
    expect(checkBundle(b, "MSG00001")).toEqual([]);
  });
  it("patientMode create never overwrites a Patient", () => {
    const b = convertToFhir(fixture("ADT-A01-01.hl7"), { patientMode: "create" });
    expect(entriesOf(b, "Patient")[0]!.request!.method).toBe("POST");
  });
});
