// Which resource types Bulk Data export offers (spec section 4.3), and which of
// them belong to the Patient compartment (for Patient- and Group-level export).

export const EXPORTABLE_TYPES = [
  "Patient",
  "Observation",
  "Condition",
  "Procedure",
  "DiagnosticReport",
  "MedicationRequest",
  "AllergyIntolerance",
  "Encounter",
  "Appointment",
  "DocumentReference",
  "Coverage",
  "Claim",
  "ExplanationOfBenefit",
  // Beyond the spec's list: what the X12 mappings store (277/278 → ClaimResponse, 270/271 →
  // CoverageEligibility*), all in the R4 Patient compartment.
  "ClaimResponse",
  "CoverageEligibilityRequest",
  "CoverageEligibilityResponse",
] as const;

export type ExportableType = (typeof EXPORTABLE_TYPES)[number];

/**
 * Types a system-level export carries only when `_type` names them: AuditEvent, the compliance
 * export of the audit trail (`_type=AuditEvent&_since=`); a default export stays clinical data.
 */
export const ON_REQUEST_SYSTEM_TYPES: readonly string[] = ["AuditEvent"];

/**
 * All spec types are in the R4 Patient CompartmentDefinition; Patient itself is the
 * compartment's focal resource. Kept as a list so a future exportable type outside
 * the compartment (e.g. Organization) is excluded from patient-level export.
 */
export const PATIENT_COMPARTMENT_TYPES: readonly ExportableType[] = EXPORTABLE_TYPES;

export function isExportable(type: string): type is ExportableType {
  return (EXPORTABLE_TYPES as readonly string[]).includes(type);
}
