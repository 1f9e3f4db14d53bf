// The converter's concept maps (convert/vocab.ts) read backwards: FHIR code → HL7 v2
// code. Where several v2 codes map to one FHIR code the first one listed is written,
// unless a choice below says otherwise; each choice reads back to the same FHIR code.
import { lookupTable } from "../../../platform/object-keys";
import {
  ADDRESS_TYPE,
  ADDRESS_USE,
  ADMINISTRATIVE_SEX,
  ALLERGY_CATEGORY,
  ALLERGY_CRITICALITY,
  ALLERGY_REACTION_SEVERITY,
  APPOINTMENT_STATUS,
  CONTENT_PRESENTATION,
  DOCUMENT_COMPLETION,
  DOCUMENT_STATUS,
  ENCOUNTER_CLASS,
  NAME_USE,
  OBSERVATION_STATUS,
  ORDER_PRIORITY,
  ORDER_STATUS,
  RESULT_STATUS,
  TELECOM_SYSTEM,
  TELECOM_USE,
} from "../convert/vocab";

type Table = Readonly<Record<string, string>>;

/** value → first key of a map, with explicit choices taking precedence. */
function backwards(map: Table, choices: Record<string, string> = {}): Table {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(map)) if (!(v in out)) out[v] = k;
  return lookupTable({ ...out, ...choices });
}

export const SEX_CODE = backwards(ADMINISTRATIVE_SEX);
export const NAME_TYPE = backwards(NAME_USE, { temp: "TEMP" });
export const ADDRESS_USE_CODE = backwards(ADDRESS_USE);
export const ADDRESS_TYPE_CODE = backwards(ADDRESS_TYPE);
export const TELECOM_USE_CODE = backwards(TELECOM_USE);
/** ContactPoint.system → XTN.3; "other", "url" and "sms" have no equipment type of their own. */
export const TELECOM_EQUIPMENT = lookupTable(Object.fromEntries(Object.entries(backwards(TELECOM_SYSTEM, { email: "Internet" })).filter(([k]) => k !== "other")));
export const RESULT_STATUS_CODE = backwards(RESULT_STATUS, { partial: "A", registered: "I" });
/** W (wrong result) rather than D (delete the OBX record) for entered-in-error. */
export const OBSERVATION_STATUS_CODE = backwards(OBSERVATION_STATUS, { "entered-in-error": "W" });
export const ORDER_STATUS_CODE = backwards(ORDER_STATUS, { active: "SC" });
export const PRIORITY_CODE = backwards(ORDER_PRIORITY);
export const ALLERGEN_TYPE = backwards(ALLERGY_CATEGORY);
export const ALLERGY_SEVERITY_FROM_CRITICALITY = backwards(ALLERGY_CRITICALITY);
export const ALLERGY_SEVERITY_FROM_REACTION = backwards(ALLERGY_REACTION_SEVERITY);
/** Appointment.status → SCH-25 in table 0278's spelling. */
export const FILLER_STATUS = lookupTable(
  Object.fromEntries(Object.entries(backwards(APPOINTMENT_STATUS)).map(([k, v]) => [k, v === "NOSHOW" ? "Noshow" : v.charAt(0) + v.slice(1).toLowerCase()])),
);
export const DOCUMENT_AVAILABILITY = backwards(DOCUMENT_STATUS);
export const DOCUMENT_COMPLETION_CODE = backwards(DOCUMENT_COMPLETION, { preliminary: "IP" });
/** MIME type (without parameters) → TXA-3 content presentation. */
export const PRESENTATION = backwards(CONTENT_PRESENTATION, { "text/plain": "TX" });

/** Encounter.class (system|code) → PV1-2, with other v3 ActCode classes folded onto the nearest. */
export const PATIENT_CLASS: Table = lookupTable({
  ...Object.fromEntries(Object.entries(ENCOUNTER_CLASS).map(([k, c]) => [`${c.system}|${c.code}`, k])),
  "http://terminology.hl7.org/CodeSystem/v3-ActCode|ACUTE": "I",
  "http://terminology.hl7.org/CodeSystem/v3-ActCode|NONAC": "I",
  "http://terminology.hl7.org/CodeSystem/v3-ActCode|SS": "O",
  "http://terminology.hl7.org/CodeSystem/v3-ActCode|OBSENC": "O",
  "http://terminology.hl7.org/CodeSystem/v3-ActCode|HH": "O",
  "http://terminology.hl7.org/CodeSystem/v3-ActCode|VR": "O",
  "http://terminology.hl7.org/CodeSystem/v3-ActCode|FLD": "O",
});

/** Participant type code (v3 ParticipationType) → PV1 field. */
export const ENCOUNTER_ROLES: readonly [string, number][] = [
  ["ATND", 7],
  ["REF", 8],
  ["CON", 9],
  ["ADM", 17],
  ["PART", 52],
];

/** Appointment participant status → AIP-12/AIL-12/AIG-14 filler status (table 0278). */
export const PARTICIPANT_STATUS: Table = lookupTable({ accepted: "Booked", declined: "Cancelled", tentative: "Pending" });
