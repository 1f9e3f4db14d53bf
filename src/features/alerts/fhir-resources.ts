// The FHIR resources an alert stands for, built from its row (pure): a DetectedIssue for the
// detected event (implicating the Observations), a Flag while a standing condition lasts (absence
// of data), and a Communication per audience. Ids derive from the alert's, so publishing again
// updates the same resources instead of adding new ones (wearables reference, section 4).
import type { Resource } from "../fhir";
import type { AlertKind } from "./rule";
import type { AlertRow } from "./tables";

export const ALERT_KIND_SYSTEM = "urn:cdis:alert-kind";
export const ALERT_ID_SYSTEM = "urn:cdis:alert";

/** The DetectedIssue codes of the reference's alert modelling (threshold-high, threshold-low, rapid-change, no-data, score-low). */
export const KIND_CODES: Record<AlertKind, { code: string; display: string }> = {
  high_value: { code: "threshold-high", display: "Reading above limit" },
  low_value: { code: "threshold-low", display: "Reading below limit" },
  rapid_change: { code: "rapid-change", display: "Rapid change" },
  data_absence: { code: "no-data", display: "No device data" },
  score_below: { code: "score-low", display: "Score below threshold" },
};

const ref = (type: string, id: string) => ({ reference: `${type}/${id}` });
const identifier = (row: AlertRow) => [{ system: ALERT_ID_SYSTEM, value: row.id }];
const kindCode = (row: AlertRow) => ({ coding: [{ system: ALERT_KIND_SYSTEM, ...KIND_CODES[row.kind] }], text: KIND_CODES[row.kind].display });

export function detectedIssue(row: AlertRow): Resource & { id: string } {
  const observations = row.observationIds.map((id) => ref("Observation", id));
  const mitigation = [
    ...(row.acknowledgedAt ? [{ action: { text: `Acknowledged by ${row.acknowledgedBy ?? "unknown"}` }, date: row.acknowledgedAt }] : []),
    ...(row.resolvedAt ? [{ action: { text: `Resolved by ${row.resolvedBy ?? "unknown"}${row.note ? `: ${row.note}` : ""}` }, date: row.resolvedAt }] : []),
  ];
  return {
    resourceType: "DetectedIssue",
    id: row.id,
    identifier: identifier(row),
    status: "final",
    code: kindCode(row),
    severity: row.severity,
    patient: ref("Patient", row.patientId),
    identifiedDateTime: row.startedAt,
    ...(observations.length || row.deviceId ? { implicated: [...observations, ...(row.deviceId ? [ref("Device", row.deviceId)] : [])] } : {}),
    ...(observations.length ? { evidence: [{ detail: observations }] } : {}),
    detail: row.message,
    ...(mitigation.length ? { mitigation } : {}),
  };
}

/** Absence is a standing condition: active while the silence lasts and the alert is not resolved. */
export function flag(row: AlertRow): Resource & { id: string } {
  const end = row.episodeEndedAt ?? row.resolvedAt;
  return {
    resourceType: "Flag",
    id: row.id,
    identifier: identifier(row),
    status: end ? "inactive" : "active",
    category: [{ coding: [{ system: "http://terminology.hl7.org/CodeSystem/flag-category", code: "clinical", display: "Clinical" }] }],
    code: { coding: [{ system: ALERT_KIND_SYSTEM, ...KIND_CODES[row.kind] }], text: row.message },
    subject: ref("Patient", row.patientId),
    period: { start: row.startedAt, ...(end ? { end } : {}) },
  };
}

export type Audience = "patient" | "care_team";

/**
 * One Communication to an audience: completed with its recipients, or not-done with the reason
 * when there is nobody to address (a patient without an active CareTeam).
 */
export function communication(row: AlertRow, audience: Audience, recipients: { reference: string }[]): Resource & { id: string } {
  const text = audience === "patient" ? `${row.message}. Please check your device and contact your care team if you feel unwell.` : row.message;
  return {
    resourceType: "Communication",
    id: `${row.id}-${audience === "patient" ? "patient" : "care-team"}`,
    identifier: identifier(row),
    status: recipients.length ? "completed" : "not-done",
    ...(recipients.length ? {} : { statusReason: { text: "The patient has no active CareTeam" } }),
    category: [{ coding: [{ system: "http://terminology.hl7.org/CodeSystem/communication-category", code: "alert", display: "Alert" }] }],
    priority: row.severity === "high" ? "urgent" : "routine",
    subject: ref("Patient", row.patientId),
    about: [ref("DetectedIssue", row.id)],
    ...(recipients.length ? { recipient: recipients, sent: row.createdAt } : {}),
    payload: [{ contentString: text }],
  };
}
