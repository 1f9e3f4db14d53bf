// Patient/$summary over HTTP: the IPS document for a full record, for demographics only and for
// a patient an HL7 v2 ADT created; type level by identifier (GET and POST); errors; tenancy;
// every generated document passes the IPS checks and the store's own $validate.
import { describe, expect, it } from "vitest";
import type { Bundle, Resource } from "../../../src/features/fhir/port";
import { convertToFhir } from "../../../src/standards/hl7v2/convert/index";
import { checkIpsDocument } from "../../../src/standards/ips/checks";
import { MAX_PER_TYPE } from "../../../src/standards/ips/record";
import { createTenant, shardOf, type Tenant } from "../../support/tenants";
import { post } from "../../fhir/support";
import { createPatient, linkDevice, minutesAgo, postReadings, reading } from "../../devices/support";

type Section = { title: string; code: { coding: { code: string }[] }; entry?: { reference: string }[]; emptyReason?: { coding: { code: string }[] }; text: { div: string } };
const sectionsOf = (b: Bundle) => (b.entry![0]!.resource as unknown as { section: Section[] }).section;
const sectionCodes = (b: Bundle) => sectionsOf(b).map((s) => s.code.coding[0]!.code);
const section = (b: Bundle, code: string) => sectionsOf(b).find((s) => s.code.coding[0]!.code === code);
const target = (b: Bundle, ref: string) => b.entry!.find((e) => e.fullUrl === ref)?.resource;

async function summary(t: Tenant, path: string, init?: RequestInit & { json?: unknown }): Promise<Bundle> {
  const res = await t.fetch(`/fhir/r4/${t.orgId}/${path}`, init);
  if (res.status !== 200) throw new Error(`${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as Bundle;
}

/** The generated document passes the IPS checks and the store's validator. */
async function expectValidDocument(t: Tenant, b: Bundle) {
  expect(checkIpsDocument(b)).toEqual([]);
  const res = await t.fetch(`/fhir/r4/${t.orgId}/Bundle/$validate`, { method: "POST", json: b, headers: { "content-type": "application/fhir+json" } });
  const outcome = (await res.json()) as { issue: { severity: string; diagnostics: string }[] };
  expect(outcome.issue.filter((i) => i.severity === "error")).toEqual([]);
  for (const e of b.entry!) {
    expect(e.fullUrl).toMatch(/^(https?:\/\/|urn:uuid:)/);
    expect(e.request).toBeUndefined();
    expect(e.response).toBeUndefined();
  }
}

const coded = (system: string, code: string, display: string) => ({ coding: [{ system, code, display }], text: display });
const LOINC = "http://loinc.org";
const SCT = "http://snomed.info/sct";
const obsCategory = (code: string) => [{ coding: [{ system: "http://terminology.hl7.org/CodeSystem/observation-category", code }] }];

async function fullRecord(t: Tenant) {
  const org = await post(t, { resourceType: "Organization", name: "Good Health Clinic" });
  const patient = await post(t, {
    resourceType: "Patient",
    identifier: [{ system: "urn:oid:1.2.3.4", value: "MRN-77" }],
    name: [{ family: "Summary", given: ["Ada"] }],
    gender: "female",
    birthDate: "1970-03-04",
    managingOrganization: { reference: `Organization/${org.id}` },
  });
  const subject = { reference: `Patient/${patient.id}` };
  const med = await post(t, { resourceType: "Medication", code: coded("http://www.nlm.nih.gov/research/umls/rxnorm", "197361", "Amlodipine 5 MG Oral Tablet") });
  const resources: Resource[] = [
    { resourceType: "Condition", subject, clinicalStatus: coded("http://terminology.hl7.org/CodeSystem/condition-clinical", "active", "Active"), code: coded(SCT, "38341003", "Hypertension"), onsetDateTime: "2015-01-01" },
    { resourceType: "Condition", subject, clinicalStatus: coded("http://terminology.hl7.org/CodeSystem/condition-clinical", "resolved", "Resolved"), code: coded(SCT, "195662009", "Acute viral pharyngitis") },
    { resourceType: "AllergyIntolerance", patient: subject, clinicalStatus: coded("http://terminology.hl7.org/CodeSystem/allergyintolerance-clinical", "active", "Active"), code: coded(SCT, "91936005", "Penicillin <allergy> & co") },
    { resourceType: "MedicationStatement", subject, status: "active", medicationReference: { reference: `Medication/${med.id}` }, effectiveDateTime: "2020-02-02" },
    { resourceType: "MedicationRequest", subject, status: "completed", intent: "order", medicationCodeableConcept: coded(SCT, "1", "Old drug") },
    { resourceType: "Immunization", patient: subject, status: "completed", vaccineCode: coded("http://hl7.org/fhir/sid/cvx", "140", "Influenza"), occurrenceDateTime: "2023-10-01" },
    { resourceType: "Observation", subject, status: "final", category: obsCategory("laboratory"), code: coded(LOINC, "2339-0", "Glucose"), effectiveDateTime: "2024-01-02", valueQuantity: { value: 5.4, unit: "mmol/L" } },
    { resourceType: "Observation", subject, status: "registered", category: obsCategory("laboratory"), code: coded(LOINC, "718-7", "Hemoglobin") },
    { resourceType: "Observation", subject, status: "final", category: obsCategory("vital-signs"), code: coded(LOINC, "8867-4", "Heart rate"), effectiveDateTime: "2024-01-02", valueQuantity: { value: 61, unit: "/min" } },
    { resourceType: "Observation", subject, status: "final", category: obsCategory("social-history"), code: coded(LOINC, "72166-2", "Tobacco smoking status"), valueCodeableConcept: coded(SCT, "8517006", "Ex-smoker") },
    { resourceType: "Observation", subject, status: "final", code: coded(LOINC, "82810-3", "Pregnancy status"), valueCodeableConcept: coded(SCT, "60001007", "Not pregnant") },
    { resourceType: "Procedure", subject, status: "completed", code: coded(SCT, "80146002", "Appendectomy"), performedDateTime: "1990-05-05" },
    { resourceType: "Device", patient: subject, status: "active", deviceName: [{ name: "Wrist wearable", type: "user-friendly-name" }] },
    { resourceType: "CarePlan", subject, status: "active", intent: "plan", title: "Blood pressure plan" },
    { resourceType: "Flag", subject, status: "active", code: coded(SCT, "1", "Fall risk") },
    { resourceType: "Consent", patient: subject, status: "active", scope: coded("http://terminology.hl7.org/CodeSystem/consentscope", "adr", "Advanced Care Directive"), category: [coded(LOINC, "59284-0", "Consent")] },
    { resourceType: "ClinicalImpression", subject, status: "completed", description: "Independent in daily activities" },
  ];
  for (const r of resources) await post(t, r);
  return { patient, org, med };
}

/**
 * `count` members of the patient's compartment written straight into the store's tables (a
 * recursive CTE, so ten thousand rows cost one statement, not ten thousand writes), updated one
 * second apart in the order of `i`: `content` is an SQL expression of `i`, `lu` (lastUpdated) and `?2` (the patient id).
 */
async function insertMembers(t: Tenant, patientId: string, type: string, prefix: string, count: number, content: string) {
  const db = await shardOf(t.orgId);
  const rows = `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?3),
    r(i, id, lu) AS (SELECT i, '${prefix}-' || i, strftime('%Y-%m-%dT%H:%M:%fZ', '2025-01-01', '+' || i || ' seconds') FROM n)`;
  await db.batch([
    db.prepare(`${rows} INSERT INTO fhir_resources (org_id, resource_type, id, version_id, last_updated, deleted, content) SELECT ?1, '${type}', id, 1, lu, 0, ${content} FROM r`).bind(t.orgId, patientId, count),
    db.prepare(`${rows} INSERT INTO fhir_compartment (org_id, patient_id, resource_type, resource_id) SELECT ?1, ?2, '${type}', id FROM r`).bind(t.orgId, patientId, count),
  ]);
}

describe("Patient/$summary", () => {
  it("builds the IPS document from a full record: sections, narrative, references inside the document", async () => {
    const t = await createTenant();
    const { patient, med, org } = await fullRecord(t);
    const b = await summary(t, `Patient/${patient.id}/$summary`);
    await expectValidDocument(t, b);
    expect(b.type).toBe("document");
    expect(b.identifier).toBeDefined();
    expect(b.timestamp).toBeDefined();
    const composition = b.entry![0]!.resource as Resource & Record<string, unknown>;
    // The document's time: Composition.date is the Bundle's timestamp, a full instant of this very request.
    expect(composition.date).toBe(b.timestamp);
    expect(composition.date).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/);
    expect(Math.abs(Date.parse(composition.date as string) - Date.now())).toBeLessThan(60_000);
    expect(composition).toMatchObject({ resourceType: "Composition", status: "final", title: "International Patient Summary", type: { coding: [{ code: "60591-5" }] } });
    expect(target(b, (composition.subject as { reference: string }).reference)?.id).toBe(patient.id);
    expect(target(b, (composition.custodian as { reference: string }).reference)?.id).toBe(org.id);
    expect(target(b, (composition.author as { reference: string }[])[0]!.reference)?.resourceType).toBe("Device");
    expect(b.entry![1]!.resource!.resourceType).toBe("Patient");
    expect(sectionCodes(b)).toEqual(["11450-4", "48765-2", "10160-0", "11369-6", "10162-6", "8716-3", "29762-2", "30954-2", "47519-4", "46264-8", "104605-1", "42348-3", "47420-5", "11348-0", "18776-5"]);
    const kinds = (code: string) => section(b, code)!.entry!.map((e) => target(b, e.reference)!.resourceType);
    expect(kinds("11450-4")).toEqual(["Condition"]);
    expect(kinds("11348-0")).toEqual(["Condition"]);
    expect(kinds("10160-0")).toEqual(["MedicationStatement"]); // the completed request is not a current medication
    expect(kinds("30954-2")).toEqual(["Observation"]); // the registered Observation without a value is no result
    // The wearable Device gets a DeviceUseStatement, and the Device itself is in the document.
    const use = target(b, section(b, "46264-8")!.entry![0]!.reference) as Resource & { device: { reference: string } };
    expect(use.resourceType).toBe("DeviceUseStatement");
    expect(target(b, use.device.reference)?.resourceType).toBe("Device");
    // What entries reference (the Medication) comes along; the audit trail does not.
    expect(b.entry!.some((e) => e.resource!.id === med.id)).toBe(true);
    expect(b.entry!.some((e) => e.resource!.resourceType === "AuditEvent")).toBe(false);
    // Narrative from the entries, escaped.
    expect(section(b, "48765-2")!.text.div).toContain("Penicillin &#60;allergy&#62; &#38; co");
    expect(section(b, "10160-0")!.text.div).toContain("Amlodipine 5 MG Oral Tablet");
  });

  it("keeps the three required sections, with emptyReason, for a patient with nothing but demographics", async () => {
    const t = await createTenant();
    const p = await post(t, { resourceType: "Patient", name: [{ text: "Only Demographics" }] });
    const b = await summary(t, `Patient/${p.id}/$summary`, { method: "POST" });
    await expectValidDocument(t, b);
    expect(sectionCodes(b)).toEqual(["11450-4", "48765-2", "10160-0"]);
    for (const s of sectionsOf(b)) {
      expect(s.entry).toBeUndefined();
      expect(s.emptyReason!.coding[0]!.code).toBe("unavailable");
      expect(s.text.div).toContain("No information");
    }
  });

  it("reads the whole record past $everything's old 5,000-member cap, and names what its per-type cap leaves out", async () => {
    const t = await createTenant();
    const { patient } = await fullRecord(t);
    // Appointments sort before Conditions in the compartment's key: a read of any 5,000 members
    // in key order (what $summary stood on) held no Condition, allergy or medication at all.
    await insertMembers(t, patient.id!, "Appointment", "appt", 5100, `json_object('resourceType', 'Appointment', 'id', id, 'meta', json_object('versionId', '1', 'lastUpdated', lu), 'status', 'booked', 'participant', json_array(json_object('actor', json_object('reference', 'Patient/' || ?2), 'status', 'accepted')))`);
    // One heart rate more than a summary reads of a type, all older than the record's own five Observations.
    await insertMembers(
      t,
      patient.id!,
      "Observation",
      "hr",
      MAX_PER_TYPE + 1,
      `json_object('resourceType', 'Observation', 'id', id, 'meta', json_object('versionId', '1', 'lastUpdated', lu), 'status', 'final',
        'category', json_array(json_object('coding', json_array(json_object('system', 'http://terminology.hl7.org/CodeSystem/observation-category', 'code', 'vital-signs')))),
        'code', json_object('coding', json_array(json_object('system', 'http://loinc.org', 'code', '8867-4', 'display', 'Heart rate'))),
        'subject', json_object('reference', 'Patient/' || ?2), 'effectiveDateTime', substr(lu, 1, 10), 'valueQuantity', json_object('value', 60 + i % 40, 'unit', '/min'))`,
    );
    const b = await summary(t, `Patient/${patient.id}/$summary`);
    expect(checkIpsDocument(b)).toEqual([]);
    const ids = (code: string) => section(b, code)!.entry!.map((e) => target(b, e.reference)!.id);
    expect(section(b, "11450-4")!.entry).toHaveLength(1);
    expect(section(b, "48765-2")!.entry).toHaveLength(1);
    expect(section(b, "10160-0")!.entry).toHaveLength(1);
    // The most recently updated are read: the record's five Observations (one heart rate) and all inserted but the six oldest.
    const vitals = ids("8716-3");
    expect(vitals).toHaveLength(1 + MAX_PER_TYPE - 5);
    expect(vitals).toContain(`hr-${MAX_PER_TYPE + 1}`);
    expect(vitals).toContain("hr-7");
    expect(vitals).not.toContain("hr-6");
    expect(ids("30954-2")).toHaveLength(1); // the record's glucose
    // The Observations not read are said, in the Composition's narrative and each section taking Observations.
    const note = `${MAX_PER_TYPE} of the ${MAX_PER_TYPE + 1 + 5} Observation resources in the record were read`;
    expect((b.entry![0]!.resource as unknown as { text: { div: string } }).text.div).toContain(note);
    expect(section(b, "8716-3")!.text.div).toContain(note);
    expect(section(b, "30954-2")!.text.div).toContain(note);
    expect(section(b, "11450-4")!.text.div).not.toContain("incomplete");
    // $everything itself keeps its cap, newest first, and says so in an OperationOutcome entry.
    const res = await t.fetch(`/fhir/r4/${t.orgId}/Patient/${patient.id}/$everything`);
    const everything = (await res.json()) as Bundle;
    const outcome = everything.entry!.find((e) => e.search?.mode === "outcome")!.resource as unknown as { issue: { severity: string; diagnostics: string }[] };
    expect(outcome.issue).toEqual([expect.objectContaining({ severity: "warning", diagnostics: expect.stringContaining("Only the 5000 most recently updated") })]);
  }, 60_000); // fifteen thousand rows and a ten-thousand-entry document

  it("summarises a patient whose data came through the device ingest: vital signs, the device and its use", async () => {
    const t = await createTenant();
    const patient = await createPatient(t, "Wearer");
    const ring = await linkDevice(t, patient);
    const answer = await postReadings(t, [
      reading(patient, ring, { metric: "heart_rate", value: 64, unit: "bpm", time: { at: minutesAgo(30) } }),
      reading(patient, ring, { metric: "spo2", value: 97, unit: "%", time: { at: minutesAgo(20) } }),
      reading(patient, ring, { metric: "blood_pressure", unit: "mmHg", time: { at: minutesAgo(10) }, components: [{ metric: "systolic", value: 128, unit: "mmHg" }, { metric: "diastolic", value: 82, unit: "mmHg" }] }),
      reading(patient, ring, { metric: "steps", value: 8000, unit: "steps", time: { at: minutesAgo(5) } }),
    ]);
    expect(answer.created).toBe(4);
    const b = await summary(t, `Patient/${patient}/$summary`);
    await expectValidDocument(t, b);
    expect(sectionCodes(b)).toEqual(["11450-4", "48765-2", "10160-0", "8716-3", "46264-8"]);
    // The three vital signs, each with its value; steps (category activity) are no IPS section's.
    const vitals = section(b, "8716-3")!.entry!.map((e) => target(b, e.reference) as Resource & { code: { coding: { code: string }[] }; device: { reference: string } });
    expect(vitals.map((o) => o.code.coding[0]!.code).sort()).toEqual(["2708-6", "85354-9", "8867-4"]);
    expect(section(b, "8716-3")!.text.div).toContain("128");
    // The ring the readings name is in the document (their relative "Device/id" references resolve
    // against the entries' fullUrls, as FHIR resolves them in a document), with a use statement.
    for (const o of vitals) expect(b.entry!.find((e) => e.fullUrl!.endsWith(`/${o.device.reference}`))?.resource?.id).toBe(ring);
    const use = target(b, section(b, "46264-8")!.entry![0]!.reference) as Resource & { device: { reference: string } };
    expect(use.resourceType).toBe("DeviceUseStatement");
    expect(target(b, use.device.reference)?.id).toBe(ring);
    expect(b.entry!.filter((e) => e.resource!.resourceType === "Device" && e.resource!.id === ring)).toHaveLength(1);
  });

  it("lists a run of one metric's readings once each, every one with its value, unit and time", async () => {
    const t = await createTenant();
    const patient = await createPatient(t, "Runner");
    const watch = await linkDevice(t, patient);
    const rates = [58, 64, 71, 90, 77, 66];
    const answer = await postReadings(
      t,
      rates.map((value, i) => reading(patient, watch, { metric: "heart_rate", value, unit: "bpm", time: { at: minutesAgo(10 * (i + 1)) } })),
    );
    expect(answer.created).toBe(rates.length);
    const b = await summary(t, `Patient/${patient}/$summary`);
    const vitals = section(b, "8716-3")!;
    // Each reading's Observation is one entry (no repeats) and one document entry.
    const refs = vitals.entry!.map((e) => e.reference);
    expect(refs).toHaveLength(rates.length);
    expect(new Set(refs).size).toBe(rates.length);
    for (const ref of refs) expect(b.entry!.filter((e) => e.fullUrl === ref)).toHaveLength(1);
    const observations = refs.map((r) => target(b, r) as Resource & { valueQuantity: { value: number; unit: string }; effectiveDateTime: string });
    expect(observations.map((o) => o.valueQuantity.value).sort()).toEqual([...rates].sort());
    for (const o of observations) {
      expect(o.valueQuantity.unit).toBe("bpm");
      expect(o.effectiveDateTime).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    }
    // The narrative's rows carry each value with its unit and its time.
    const rows = vitals.text.div.match(/<tr><td>[^<]*<\/td><td>[^<]*<\/td>/g)!;
    expect(rows).toHaveLength(rates.length);
    for (const rate of rates) expect(vitals.text.div).toContain(`<td>${rate} bpm</td>`);
    for (const o of observations) expect(vitals.text.div).toContain(o.effectiveDateTime);
  });

  it("summarises a patient an HL7 v2 ADT^A01 created", async () => {
    const t = await createTenant();
    const adt = [
      "MSH|^~\\&|ADT|HOSP|EHR|HOSP|20240101120000||ADT^A01^ADT_A01|IPS1|P|2.5.1",
      "EVN|A01|20240101120000",
      "PID|1||IPS-555^^^HOSP&2.16.840.1.113883.19.5&ISO^MR||DOE^JANE||19800101|F",
      "PV1|1|I|W1^R1^B1",
      "AL1|1|DA|70618^Penicillin^RXNORM|SV|Hives",
      "DG1|1||I10^Essential hypertension^I10||20240101|A",
    ].join("\r");
    const res = await t.fetch(`/fhir/r4/${t.orgId}`, { method: "POST", json: convertToFhir(adt) });
    expect(res.status).toBe(200);
    const b = await summary(t, "Patient/$summary?identifier=urn:oid:2.16.840.1.113883.19.5|IPS-555");
    await expectValidDocument(t, b);
    expect((b.entry![1]!.resource as unknown as { name: { family: string }[] }).name[0]!.family).toBe("DOE");
  });

  it("finds the patient by identifier at type level, GET and POST with Parameters", async () => {
    const t = await createTenant();
    const { patient } = await fullRecord(t);
    const get = await summary(t, "Patient/$summary?identifier=urn:oid:1.2.3.4|MRN-77");
    expect(get.entry![1]!.resource!.id).toBe(patient.id);
    const posted = await summary(t, "Patient/$summary", {
      method: "POST",
      json: { resourceType: "Parameters", parameter: [{ name: "identifier", valueIdentifier: { system: "urn:oid:1.2.3.4", value: "MRN-77" } }, { name: "profile", valueCanonical: "http://hl7.org/fhir/uv/ips/StructureDefinition/Bundle-uv-ips" }] },
    });
    expect(posted.entry![1]!.resource!.id).toBe(patient.id);
    await expectValidDocument(t, posted);
  });

  it("answers 4xx OperationOutcomes for what it cannot do", async () => {
    const t = await createTenant();
    await post(t, { resourceType: "Patient", identifier: [{ system: "urn:x", value: "dup" }] });
    await post(t, { resourceType: "Patient", identifier: [{ system: "urn:x", value: "dup" }] });
    const status = async (path: string, init?: RequestInit & { json?: unknown }) => {
      const res = await t.fetch(`/fhir/r4/${t.orgId}/${path}`, init);
      const body = (await res.json()) as { resourceType: string };
      expect(body.resourceType).toBe("OperationOutcome");
      return res.status;
    };
    expect(await status("Patient/$summary")).toBe(400);
    expect(await status("Patient/$summary?identifier=urn:x|nobody")).toBe(404);
    expect(await status("Patient/$summary?identifier=urn:x|dup")).toBe(400);
    expect(await status("Patient/missing/$summary")).toBe(404);
    const p = await post(t, { resourceType: "Patient", name: [{ family: "X" }] });
    expect(await status(`Patient/${p.id}/$summary?profile=http://example.org/other`)).toBe(400);
    expect(await status(`Patient/${p.id}/$summary`, { method: "POST", json: { resourceType: "Patient" } })).toBe(400);
  });

  it("never summarises another organization's patient", async () => {
    const a = await createTenant();
    const b = await createTenant();
    const { patient } = await fullRecord(a);
    expect((await b.fetch(`/fhir/r4/${b.orgId}/Patient/${patient.id}/$summary`)).status).toBe(404);
    expect((await b.fetch(`/fhir/r4/${b.orgId}/Patient/$summary?identifier=urn:oid:1.2.3.4|MRN-77`)).status).toBe(404);
    // Another organization's patient referenced by id from B's own record is not pulled into B's document.
    const own = await post(b, { resourceType: "Patient", name: [{ family: "B" }] });
    await post(b, { resourceType: "Condition", subject: { reference: `Patient/${own.id}` }, code: coded(SCT, "1", "x"), asserter: { reference: `Patient/${patient.id}` } });
    const doc = await summary(b, `Patient/${own.id}/$summary`);
    expect(doc.entry!.some((e) => e.resource!.id === patient.id)).toBe(false);
  });
});
