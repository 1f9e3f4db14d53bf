// The evaluation set of `npm run eval:copilot`: natural-language pipeline requests typical of
// integration work, each with the inputs a test_mode run gets.

export interface EvalRequest {
  id: string;
  description: string;
  /** Inputs of the test_mode execution (the trigger's event). */
  inputs: Record<string, unknown>;
}

const adt =
  "MSH|^~\\&|ADT|HOSP|CDIS|ORG|202401011200||ADT^A01|MSG0001|P|2.5\rEVN|A01|202401011200\rPID|1||12345^^^HOSP^MR||Doe^Jane||19800101|F|||1 Main St^^Springfield^IL^62701\rPV1|1|I|W^101^1";
const oru =
  "MSH|^~\\&|LAB|HOSP|CDIS|ORG|202401011300||ORU^R01|MSG0002|P|2.5\rPID|1||12345^^^HOSP^MR||Doe^Jane||19800101|F\rOBR|1||LAB1|4548-4^Hemoglobin A1c^LN\rOBX|1|NM|4548-4^Hemoglobin A1c^LN||7.2|%|4.0-5.6|H|||F";
const patient = { resourceType: "Patient", identifier: [{ system: "urn:mrn", value: "12345" }], name: [{ family: "Doe", given: ["Jane"] }], birthDate: "1980-01-01" };
const reading = { patient_id: "12345", metric: "heart_rate", value: 142, unit: "bpm", at: "2024-01-01T10:00:00Z", device: "watch" };
const claim = { claim_id: "C1", patient: "12345", amount: 125.5, codes: ["99213"] };

export const EVAL_REQUESTS: EvalRequest[] = [
  { id: "adt-to-fhir", description: "Convert inbound HL7 ADT^A01 messages to FHIR Patient and Encounter and store them, matching existing patients by MRN", inputs: { message: adt } },
  { id: "adt-match", description: "For each ADT message, find the patient by identifier and update the record if it exists, otherwise create it", inputs: { message: adt } },
  { id: "adt-ack", description: "Receive HL7 v2 ADT messages over MLLP, convert them to FHIR and answer with an HL7 ACK", inputs: { message: adt } },
  { id: "adt-a08", description: "On ADT^A08 patient updates, update the FHIR Patient demographics", inputs: { message: adt } },
  { id: "oru-results", description: "Turn ORU^R01 lab results into FHIR Observations and store them", inputs: { message: oru } },
  { id: "oru-critical", description: "Route lab results: abnormal flagged Observations go to a critical-results webhook, others are just stored", inputs: { message: oru } },
  { id: "lab-filter", description: "Keep only HbA1c results (LOINC 4548-4) from incoming Observations and log them", inputs: { resourceType: "Observation", code: { coding: [{ system: "http://loinc.org", code: "4548-4" }] }, valueQuantity: { value: 7.2 } } },
  { id: "lab-range", description: "Flag lab observations whose value is outside 4.0-5.6 and send an alert to https://alerts.example.net/lab", inputs: { value: 7.2, code: "4548-4" } },
  { id: "hl7-parse-log", description: "Parse an HL7 v2 message to JSON and log the message type and control id", inputs: { message: oru } },
  { id: "wearable-hr", description: "When a wearable heart-rate reading above 130 bpm arrives, create a FHIR Observation and notify the care team webhook", inputs: reading },
  { id: "wearable-store", description: "Store wearable step-count readings as FHIR Observations for the patient", inputs: { ...reading, metric: "steps", value: 8000, unit: "steps" } },
  { id: "wearable-spo2", description: "Alert when SpO2 from a pulse oximeter drops below 92%", inputs: { ...reading, metric: "spo2", value: 89, unit: "%" } },
  { id: "wearable-classify", description: "Use an AI node to classify a wearable reading as normal, watch or urgent", inputs: reading },
  { id: "bulk-schedule", description: "Every night at 2am, search all Observations updated in the last day and post them as a bundle to the data warehouse https://dw.example.net/ingest", inputs: {} },
  { id: "schedule-report", description: "Every Monday at 6:00 count active patients and log the number", inputs: {} },
  { id: "ehr-sync", description: "Fetch patients from the connected EHR and upsert them into the FHIR store", inputs: {} },
  { id: "ehr-push", description: "When a Patient is created, post it to the EHR's FHIR endpoint https://ehr.example.net/fhir/Patient", inputs: patient },
  { id: "ehr-encounter", description: "Take an Encounter from a webhook and store it, then send a copy to https://ehr.example.net/encounters", inputs: { resourceType: "Encounter", status: "finished", class: { code: "AMB" } } },
  { id: "x12-claim", description: "Take an incoming claim JSON, map it to a FHIR Claim resource and store it", inputs: claim },
  { id: "x12-eligibility", description: "For an eligibility request, look up the patient's Coverage resources and return them", inputs: { patient: "12345" } },
  { id: "x12-remit", description: "Take remittance (835) payment data as JSON, map each payment to a FHIR PaymentReconciliation and log the totals", inputs: { payments: [{ claim_id: "C1", paid: 100 }] } },
  { id: "validate-patient", description: "Validate incoming Patient resources against the FHIR spec and log validation errors", inputs: patient },
  { id: "schema-check", description: "Check incoming JSON has id, name and birthDate with a JSON schema; reject the rest with an error log", inputs: { id: "1", name: "Jane", birthDate: "1980-01-01" } },
  { id: "dedupe", description: "Search for an existing Patient with the same identifier before creating one (conditional create)", inputs: patient },
  { id: "transform-csv", description: "Transform a flat JSON record {mrn, first, last, dob} into a FHIR Patient and store it", inputs: { mrn: "12345", first: "Jane", last: "Doe", dob: "1980-01-01" } },
  { id: "webhook-fhir", description: "Expose a webhook that accepts a FHIR Bundle, splits it into resources and stores each", inputs: { resourceType: "Bundle", type: "collection", entry: [{ resource: patient }] } },
  { id: "concept-map", description: "Map local lab codes to LOINC with a concept map and set the coding on the Observation", inputs: { code: "HBA1C", value: 7.2 } },
  { id: "ai-summary", description: "Summarize a patient's recent observations with an LLM and log the summary", inputs: { patient_id: "12345" } },
  { id: "ai-extract", description: "Extract FHIR resources from a free-text clinical note with AI and store them", inputs: { note: "Jane Doe, 44, HbA1c 7.2% today, started metformin 500 mg" } },
  { id: "switch-type", description: "Route incoming resources by resourceType: Patients to one log, Observations to another, everything else to a third", inputs: patient },
  { id: "for-each", description: "For each entry of an incoming Bundle, set meta.source to 'bridge' and store it", inputs: { resourceType: "Bundle", type: "collection", entry: [{ resource: patient }] } },
  { id: "delay-retry", description: "Post discharge summaries to https://hie.example.net/summaries with 3 retries and log failures", inputs: { resourceType: "Composition", status: "final" } },
];
