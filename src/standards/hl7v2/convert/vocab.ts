// Vocabulary: HL7 v2 coding-system names (CWE.3) → FHIR code system URIs, and the
// concept maps of the V2-to-FHIR IG (codesystems/*.csv) that the segment maps use.
import { lookupTable } from "../../../platform/object-keys";

export const V2 = (table: string) => `http://terminology.hl7.org/CodeSystem/v2-${table.padStart(4, "0")}`;
export const V3 = (name: string) => `http://terminology.hl7.org/CodeSystem/v3-${name}`;

/** HL7 table 0396 names (and common variants) → URI. */
export const CODING_SYSTEMS: Readonly<Record<string, string>> = lookupTable({
  LN: "http://loinc.org",
  LOINC: "http://loinc.org",
  SCT: "http://snomed.info/sct",
  SNM: "http://snomed.info/sct",
  SNM3: "http://snomed.info/sct",
  SNOMED: "http://snomed.info/sct",
  SNOMEDCT: "http://snomed.info/sct",
  I10: "http://hl7.org/fhir/sid/icd-10",
  ICD10: "http://hl7.org/fhir/sid/icd-10",
  I10C: "http://hl7.org/fhir/sid/icd-10-cm",
  ICD10CM: "http://hl7.org/fhir/sid/icd-10-cm",
  I10P: "http://www.cms.gov/Medicare/Coding/ICD10",
  ICD10PCS: "http://www.cms.gov/Medicare/Coding/ICD10",
  I9: "http://hl7.org/fhir/sid/icd-9-cm",
  I9C: "http://hl7.org/fhir/sid/icd-9-cm",
  I9CM: "http://hl7.org/fhir/sid/icd-9-cm",
  ICD9: "http://hl7.org/fhir/sid/icd-9-cm",
  ICD9CM: "http://hl7.org/fhir/sid/icd-9-cm",
  C4: "http://www.ama-assn.org/go/cpt",
  C5: "http://www.ama-assn.org/go/cpt",
  CPT: "http://www.ama-assn.org/go/cpt",
  CPT4: "http://www.ama-assn.org/go/cpt",
  HCPCS: "http://www.cms.gov/Medicare/Coding/HCPCSReleaseCodeSets",
  HCPT: "http://www.cms.gov/Medicare/Coding/HCPCSReleaseCodeSets",
  CVX: "http://hl7.org/fhir/sid/cvx",
  MVX: "http://terminology.hl7.org/CodeSystem/MVX",
  NDC: "http://hl7.org/fhir/sid/ndc",
  RXNORM: "http://www.nlm.nih.gov/research/umls/rxnorm",
  RXN: "http://www.nlm.nih.gov/research/umls/rxnorm",
  UCUM: "http://unitsofmeasure.org",
  CDCREC: "urn:oid:2.16.840.1.113883.6.238",
  NUCCPT: "http://nucc.org/provider-taxonomy",
  NUCCPROVIDERTAXONOMY: "http://nucc.org/provider-taxonomy",
  DCM: "http://dicom.nema.org/resources/ontology/DCM",
  ISO3166_1: "urn:iso:std:iso:3166",
  ISO3166: "urn:iso:std:iso:3166",
  ISO639: "urn:ietf:bcp:47",
  NCIT: "http://ncimeta.nci.nih.gov",
  UMLS: "http://www.nlm.nih.gov/research/umls",
  HGNC: "http://www.genenames.org",
  CDT: "http://ada.org/cdt",
  NPI: "http://hl7.org/fhir/sid/us-npi",
});

export const OID = /^[0-2](\.(0|[1-9]\d*))+$/;
export const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
export const ABSOLUTE_URI = /^(https?:\/\/|urn:)\S+$/i;

/**
 * URI for a CWE.3 coding system name, or undefined when it is not a known name,
 * an HL7 table (HL7nnnn / 99zzz are tables; 99zzz is local), an OID, a UUID or a URI.
 */
export function knownCodingSystem(name: string, extra?: Record<string, string>): string | undefined {
  const n = name.trim();
  if (extra?.[n]) return extra[n];
  const table = /^HL7(\d{4})$/i.exec(n) ?? /^HL7(\d{3})$/i.exec(n);
  if (table) return V2(table[1]!);
  const k = CODING_SYSTEMS[n.toUpperCase()];
  if (k) return k;
  if (OID.test(n)) return `urn:oid:${n}`;
  if (UUID.test(n)) return `urn:uuid:${n.toLowerCase()}`;
  if (ABSOLUTE_URI.test(n)) return n;
  return undefined;
}

type Map1 = Readonly<Record<string, string>>;
const map = (m: Record<string, string>): Map1 => lookupTable(m);

export const ADMINISTRATIVE_SEX = map({ F: "female", M: "male", O: "other", U: "unknown", A: "other", N: "other" });

export const ENCOUNTER_CLASS: Readonly<Record<string, { system: string; code: string; display: string }>> = lookupTable({
  E: { system: V3("ActCode"), code: "EMER", display: "emergency" },
  I: { system: V3("ActCode"), code: "IMP", display: "inpatient encounter" },
  O: { system: V3("ActCode"), code: "AMB", display: "ambulatory" },
  P: { system: V3("ActCode"), code: "PRENC", display: "pre-admission" },
  R: { system: V2("0004"), code: "R", display: "Recurring patient" },
  B: { system: V2("0004"), code: "B", display: "Obstetrics" },
  C: { system: V2("0004"), code: "C", display: "Commercial Account" },
  N: { system: V2("0004"), code: "N", display: "Not Applicable" },
  U: { system: V2("0004"), code: "U", display: "Unknown" },
});
export const ENCOUNTER_CLASS_UNKNOWN = { system: V3("NullFlavor"), code: "UNK", display: "unknown" };

export const PATIENT_CLASS_STATUS = map({ E: "in-progress", I: "in-progress", O: "in-progress", P: "planned", R: "in-progress", B: "in-progress", C: "in-progress", N: "in-progress", U: "unknown" });
export const EVENT_ENCOUNTER_STATUS = map({ A01: "in-progress", A02: "in-progress", A03: "finished", A04: "planned", A05: "planned", A11: "cancelled", A13: "in-progress" });

export const RESULT_STATUS = map({ O: "registered", I: "registered", S: "registered", P: "preliminary", C: "corrected", R: "partial", F: "final", X: "cancelled", A: "partial", M: "amended" });
export const OBSERVATION_STATUS = map({ A: "amended", C: "corrected", D: "entered-in-error", F: "final", P: "preliminary", X: "cancelled", W: "entered-in-error", R: "preliminary", S: "preliminary", I: "registered", O: "registered", U: "final", N: "unknown", V: "final", B: "final" });

export const ORDER_CONTROL_STATUS = map({
  AF: "active", CA: "active", CR: "revoked", DC: "revoked", DF: "revoked", DR: "revoked", FU: "completed", HD: "active", HR: "on-hold",
  NW: "active", OC: "revoked", OD: "revoked", OH: "on-hold", OK: "active", PR: "active", PY: "active", RL: "active", RO: "active", RQ: "active",
  SC: "active", XO: "active", RE: "completed",
});
export const ORDER_STATUS = map({ CA: "revoked", CM: "completed", DC: "revoked", ER: "entered-in-error", HD: "on-hold", IP: "active", RP: "revoked", SC: "active" });
/** TQ.6 / TQ1-9 priority (table 0027) → ServiceRequest.priority. */
export const ORDER_PRIORITY = map({ S: "stat", A: "asap", R: "routine", P: "urgent", C: "urgent", T: "urgent" });

export const ALLERGY_CATEGORY = map({ DA: "medication", FA: "food", EA: "environment", AA: "biologic", PA: "environment", LA: "environment" });
export const ALLERGY_TYPE = map({ DA: "allergy", FA: "allergy", MA: "allergy", EA: "allergy", AA: "allergy", PA: "allergy", LA: "allergy" });
export const ALLERGY_CRITICALITY = map({ SV: "high", MI: "low", U: "unable-to-assess" });
export const ALLERGY_REACTION_SEVERITY = map({ SV: "severe", MO: "moderate", MI: "mild" });

export const APPOINTMENT_STATUS = map({
  PENDING: "pending", WAITLIST: "waitlist", BOOKED: "booked", STARTED: "checked-in", COMPLETE: "fulfilled", CANCELLED: "cancelled",
  DELETED: "entered-in-error", NOSHOW: "noshow", OVERBOOK: "booked", ARRIVED: "arrived", DC: "cancelled", DISCONTINUED: "cancelled",
});
/** SIU trigger → Appointment.status when SCH-25 says nothing usable. */
export const SIU_EVENT_STATUS = map({ S12: "booked", S13: "booked", S14: "booked", S15: "cancelled", S16: "cancelled", S17: "entered-in-error", S26: "noshow" });

export const NAME_USE = map({ BAD: "old", D: "usual", L: "official", M: "maiden", MSK: "anonymous", N: "nickname", NAV: "temp", R: "official", TEMP: "temp", A: "usual", B: "official", C: "official", S: "anonymous", U: "temp" });
export const ADDRESS_USE = map({ BA: "old", BI: "billing", C: "temp", B: "work", H: "home", O: "work" });
export const ADDRESS_TYPE = map({ M: "postal", SH: "postal" });
export const TELECOM_USE = map({ PRN: "home", WPN: "work", PRS: "mobile", ORN: "home", VHN: "home" });
export const TELECOM_SYSTEM = map({ PH: "phone", FX: "fax", MD: "other", CP: "phone", SAT: "phone", BP: "pager", INTERNET: "email", "X.400": "email", TDD: "other", TTY: "other" });

export const DOCUMENT_STATUS = map({ AV: "current", CA: "entered-in-error", OB: "superseded", UN: "current" });
export const DOCUMENT_COMPLETION = map({ AU: "final", LA: "final", DI: "preliminary", DO: "preliminary", IP: "preliminary", IN: "preliminary", PA: "preliminary" });
/** TXA-3 document content presentation (table 0191) → MIME type. */
export const CONTENT_PRESENTATION = map({ TX: "text/plain", FT: "text/plain", TEXT: "text/plain", AP: "application/octet-stream", AU: "audio/basic", IM: "image/jpeg", MULTIPART: "multipart/mixed", NS: "application/octet-stream", SD: "application/octet-stream", SI: "image/jpeg" });
