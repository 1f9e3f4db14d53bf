// PDQm's AuditEvent at the Supplier (IHE.PDQm.Query.Audit.Supplier): every Patient search is an
// ITI-78 Mobile Patient Demographics Query; Query, action E; the query, and the patient when the
// answer holds exactly one (the profile allows one patient entity).
import type { GuideAudit } from "../../../features/fhir/guide-audit";
import type { Bundle } from "../../../features/fhir/port";
import { EVENT_TYPES, iheAuditEvent, patientEntity, queryEntity } from "../audit-event";

export const pdqmAudit: GuideAudit = {
  async eventFor(on) {
    if (on.kind !== "search" || on.type !== "Patient") return undefined;
    const matches = ((on.response as Bundle | undefined)?.entry ?? []).filter((e) => e.search?.mode === "match" && e.resource?.id);
    const patient = matches.length === 1 ? [patientEntity({ reference: `Patient/${matches[0]!.resource!.id}` })] : [];
    return iheAuditEvent(
      {
        profile: "https://profiles.ihe.net/ITI/PDQm/StructureDefinition/IHE.PDQm.Query.Audit.Supplier",
        type: EVENT_TYPES.query,
        action: "E",
        transaction: ["ITI-78", "Mobile Patient Demographics Query"],
        entity: [...patient, queryEntity(`Patient?${on.params}`)],
      },
      on,
    );
  },
};
