// Code systems and code maps of the X12 ↔ FHIR mappings, in one place. X12 code lists
// use the Da Vinci PAS convention https://codesystem.x12.org/005010/<data element>.

export const X12_CODES = (element: number | string) => `https://codesystem.x12.org/005010/${element}`;

export const SYSTEM = {
  npi: "http://hl7.org/fhir/sid/us-npi",
  ein: "urn:oid:2.16.840.1.113883.4.4",
  icd10cm: "http://hl7.org/fhir/sid/icd-10-cm",
  icd10pcs: "http://www.cms.gov/Medicare/Coding/ICD10",
  cpt: "http://www.ama-assn.org/go/cpt",
  hcpcs: "urn:oid:2.16.840.1.113883.6.285",
  ndc: "http://hl7.org/fhir/sid/ndc",
  revenue: "https://www.nubc.org/CodeSystem/RevenueCodes",
  placeOfService: "https://www.cms.gov/Medicare/Coding/place-of-service-codes/Place_of_Service_Code_Set",
  typeOfBill: "https://www.nubc.org/CodeSystem/TypeOfBill",
  claimType: "http://terminology.hl7.org/CodeSystem/claim-type",
  processPriority: "http://terminology.hl7.org/CodeSystem/processpriority",
  diagnosisType: "http://terminology.hl7.org/CodeSystem/ex-diagnosistype",
  careTeamRole: "http://terminology.hl7.org/CodeSystem/claimcareteamrole",
  relationship: "http://terminology.hl7.org/CodeSystem/subscriber-relationship",
  coverageClass: "http://terminology.hl7.org/CodeSystem/coverage-class",
  adjudication: "http://terminology.hl7.org/CodeSystem/adjudication",
  paymentType: "http://terminology.hl7.org/CodeSystem/payment-type",
  benefitType: "http://terminology.hl7.org/CodeSystem/benefit-type",
  benefitNetwork: "http://terminology.hl7.org/CodeSystem/benefit-network",
  benefitUnit: "http://terminology.hl7.org/CodeSystem/benefit-unit",
  actCode: "http://terminology.hl7.org/CodeSystem/v3-ActCode",
  claimInformation: "http://terminology.hl7.org/CodeSystem/claiminformationcategory",
  taxonomy: "http://nucc.org/provider-taxonomy",
  serviceType: X12_CODES(1365),
  eligibilityCode: X12_CODES(1390),
  rejectReason: X12_CODES(901),
  adjustmentGroup: X12_CODES(1033),
  adjustmentReason: X12_CODES(1034),
  claimStatus835: X12_CODES(1029),
  statusCategory: X12_CODES(507),
  statusCode: X12_CODES(508),
  actionCode: X12_CODES(306),
  claimFilingIndicator: X12_CODES(1032),
  adjustmentReasonPlb: X12_CODES(426),
} as const;

/** Da Vinci PAS extensions for what R4's Claim and ClaimResponse have no element for. */
const PAS = "http://hl7.org/fhir/us/davinci-pas/StructureDefinition";
export const EXTENSION = {
  /** 278 2000F TRN: the service's trace number (Claim.item, ClaimResponse.item). */
  itemTraceNumber: `${PAS}/extension-itemTraceNumber`,
  /** 278 HCR: the review's action and its review identification number (HCR02), on an adjudication. */
  reviewAction: `${PAS}/extension-reviewAction`,
  reviewActionCode: `${PAS}/extension-reviewActionCode`,
  /** 837 PRV*BI: the billing provider's taxonomy (Da Vinci PCT), on Claim.provider. */
  providerTaxonomy: "http://hl7.org/fhir/us/davinci-pct/StructureDefinition/providerTaxonomy",
} as const;

/** HI qualifiers → code system of the value, and whether it is the principal/admitting diagnosis. */
export const DIAGNOSIS_QUALIFIERS: Readonly<Record<string, { type: string; system: string }>> = {
  ABK: { type: "principal", system: SYSTEM.icd10cm },
  BK: { type: "principal", system: "http://hl7.org/fhir/sid/icd-9-cm" },
  ABJ: { type: "admitting", system: SYSTEM.icd10cm },
  BJ: { type: "admitting", system: "http://hl7.org/fhir/sid/icd-9-cm" },
  APR: { type: "patientreasonforvisit", system: SYSTEM.icd10cm },
  PR: { type: "patientreasonforvisit", system: "http://hl7.org/fhir/sid/icd-9-cm" },
  ABN: { type: "externalcauseofinjury", system: SYSTEM.icd10cm },
  BN: { type: "externalcauseofinjury", system: "http://hl7.org/fhir/sid/icd-9-cm" },
  ABF: { type: "other", system: SYSTEM.icd10cm },
  BF: { type: "other", system: "http://hl7.org/fhir/sid/icd-9-cm" },
};
/** An ICD-10 code as X12 writes it (no dot) → as FHIR writes it (dot after the category). */
export const icdFromX12 = (code: string) => (code.length > 3 && !code.includes(".") ? `${code.slice(0, 3)}.${code.slice(3)}` : code);
export const icdToX12 = (code: string) => code.replace(".", "");

/** The HI qualifier of a diagnosis type in a code system (ICD-10: ABK, ABJ, APR, ABN, ABF; ICD-9: BK...); other types are ABF/BF. */
export function diagnosisQualifier(type: string, system: string | undefined): string {
  const hit = (t: string) => Object.entries(DIAGNOSIS_QUALIFIERS).find(([, q]) => q.type === t && q.system === (system === DIAGNOSIS_QUALIFIERS.BK!.system ? system : SYSTEM.icd10cm))?.[0];
  return hit(type) ?? hit("other")!;
}

/** 837I CL1 elements as Claim.supportingInfo: its category, text and NUBC code system, both ways. */
export const CL1_INFO = [
  { element: 1, category: "info", text: "admission type", system: "https://www.nubc.org/CodeSystem/PriorityTypeOfAdmitOrVisit" },
  { element: 2, category: "info", text: "admission source", system: "https://www.nubc.org/CodeSystem/PointOfOrigin" },
  { element: 3, category: "discharge", text: "patient status", system: "https://www.nubc.org/CodeSystem/PatDischargeStatus" },
] as const;

/** Product/service qualifier (SV101-1, SV202-1, SVC01-1) → system; HC splits into CPT and HCPCS Level II. */
export function serviceSystem(qualifier: string, code: string): string {
  if (qualifier === "HC") return /^\d{4}[0-9A-Z]$/.test(code) ? SYSTEM.cpt : SYSTEM.hcpcs;
  if (qualifier === "N4") return SYSTEM.ndc;
  if (qualifier === "NU") return SYSTEM.revenue;
  return X12_CODES(`235-${qualifier}`);
}
/** The X12 qualifier for a service code system. */
export function serviceQualifier(system: string | undefined): string {
  if (system === SYSTEM.ndc) return "N4";
  if (system === SYSTEM.revenue) return "NU";
  const m = /235-([A-Z0-9]+)$/.exec(system ?? "");
  return m ? m[1]! : "HC";
}

/** SBR02/PAT01 individual relationship code → subscriber-relationship. */
export const RELATIONSHIP: Readonly<Record<string, string>> = { "18": "self", "01": "spouse", "19": "child", "20": "other", "21": "other", "39": "other", "40": "other", "53": "other", G8: "other" };
export const RELATIONSHIP_BACK: Readonly<Record<string, string>> = { self: "18", spouse: "01", child: "19", parent: "G8", common: "G8", other: "G8", injured: "G8" };

export const GENDER: Readonly<Record<string, string>> = { F: "female", M: "male", U: "unknown" };
export const GENDER_BACK: Readonly<Record<string, string>> = { female: "F", male: "M", unknown: "U", other: "U" };

/** 835 CLP02 claim status → disposition text. */
export const CLP_STATUS: Readonly<Record<string, string>> = {
  "1": "Processed as Primary",
  "2": "Processed as Secondary",
  "3": "Processed as Tertiary",
  "4": "Denied",
  "19": "Processed as Primary, Forwarded to Additional Payer(s)",
  "20": "Processed as Secondary, Forwarded to Additional Payer(s)",
  "21": "Processed as Tertiary, Forwarded to Additional Payer(s)",
  "22": "Reversal of Previous Payment",
  "23": "Not Our Claim, Forwarded to Additional Payer(s)",
  "25": "Predetermination Pricing Only - No Payment",
};

/** 271 EB01 → benefit-type (benefit when there is no closer code). */
export const EB_BENEFIT_TYPE: Readonly<Record<string, string>> = { A: "copay-percent", B: "copay", C: "deductible", F: "benefit", G: "benefit" };

/** 277 STC01-1 claim status category → ClaimResponse.outcome. */
export function statusOutcome(category: string): "queued" | "complete" | "error" | "partial" {
  if (/^(A3|A6|A7|A8|E\d)/.test(category)) return "error";
  if (/^F/.test(category)) return "complete";
  if (/^R/.test(category)) return "partial";
  return "queued";
}

/** 278 HCR01 action code → ClaimResponse.outcome. */
export const HCR_OUTCOME: Readonly<Record<string, "queued" | "complete" | "error" | "partial">> = { A1: "complete", A2: "partial", A3: "complete", A4: "queued", A6: "partial", C: "complete", CT: "queued", D: "queued", IP: "queued", NA: "complete" };
export const HCR_TEXT: Readonly<Record<string, string>> = { A1: "Certified in total", A2: "Certified - partial", A3: "Not Certified", A4: "Pended", A6: "Modified", C: "Cancelled", CT: "Contact Payer", D: "Deferred", IP: "In Process", NA: "No Action Required" };
