// PDQm's AuditEvents at the Supplier:
// - IHE.PDQm.Query.Audit.Supplier: every Patient search is an ITI-78 Mobile Patient Demographics
//   Query; Query, action E; the query, and the patient when the answer holds exactly one (the
//   profile allows one patient entity);
// - IHE.PDQm.Match.Audit.Supplier: Patient/$match is ITI-119 Patient Demographics Match; as the
//   PDQm 3.2 profile (built on BALP) has it, type rest, subtypes ITI-119 and the RESTful
//   interaction search, action E; the query entity holds the Parameters body, and each patient
//   the answer matched is a patient entity.
import type { AuditedInteraction, GuideAudit } from "../../../features/fhir";
import type { Bundle } from "../../../platform/fhir-resource";
import { EVENT_TYPES, iheAuditEvent, patientEntity, queryEntity } from "../audit-event";

const SD = "https://profiles.ihe.net/ITI/PDQm/StructureDefinition/";

/** The ids of the Patients a searchset or $match answer matched (includes left out). */
const matchedPatients = (on: AuditedInteraction): string[] =>
  ((on.response as Bundle | undefined)?.entry ?? []).flatMap((e) => (e.search?.mode === "match" && e.resource?.resourceType === "Patient" && e.resource.id ? [e.resource.id] : []));

export const pdqmAudit: GuideAudit = {
  async eventFor(on) {
    if (on.kind === "search" && on.type === "Patient") {
      const matches = matchedPatients(on);
      const patient = matches.length === 1 ? [patientEntity({ reference: `Patient/${matches[0]}` })] : [];
      return iheAuditEvent(
        {
          profile: `${SD}IHE.PDQm.Query.Audit.Supplier`,
          type: EVENT_TYPES.query,
          action: "E",
          transaction: ["ITI-78", "Mobile Patient Demographics Query"],
          entity: [...patient, queryEntity(`Patient?${on.params}`)],
        },
        on,
      );
    }
    if (on.kind === "operation" && on.name === "match" && on.type === "Patient") {
      return iheAuditEvent(
        {
          profile: `${SD}IHE.PDQm.Match.Audit.Supplier`,
          type: EVENT_TYPES.rest,
          action: "E",
          transaction: ["ITI-119", "Patient Demographics Match"],
          interaction: "search",
          entity: [queryEntity(on.body === undefined ? `Patient/$match?${on.params}` : JSON.stringify(on.body), "$match"), ...matchedPatients(on).map((id) => patientEntity({ reference: `Patient/${id}` }))],
        },
        on,
      );
    }
    return undefined;
  },
};
