// The AuditEvent of Patient/$summary beside the store's own: no IHE transaction or audit profile
// covers IPS generation (IHE sIPS shares the document through MHD/XDS, audited there), so it is
// the FHIR operation audit in the shape the IHE profiles share (audit-event.ts: Source and
// Destination Role ID agents, the audit source): type rest, subtype operation, action E; the
// patient, the request as the query entity named "$summary", and the generated document (role 3
// Report, by its Bundle.identifier: the document is not stored).
import type { AuditedInteraction, GuideAudit } from "../../features/fhir";
import type { Bundle } from "../../platform/fhir-resource";
import { EVENT_TYPES, iheAuditEvent, objectEntity, patientEntity, queryEntity } from "../ihe";

/** The patient summarised: the instance's id, or the document's Patient at type level. */
function patientOf(on: Extract<AuditedInteraction, { kind: "operation" }>, document: Bundle | undefined): string | undefined {
  if (on.id) return on.id;
  return document?.entry?.find((e) => e.resource?.resourceType === "Patient")?.resource?.id;
}

export const ipsAudit: GuideAudit = {
  async eventFor(on) {
    if (on.kind !== "operation" || on.name !== "summary" || on.type !== "Patient") return undefined;
    const document = (on.response as Bundle | undefined)?.resourceType === "Bundle" ? (on.response as Bundle) : undefined;
    const patient = patientOf(on, document);
    const request = `Patient/${on.id ? `${on.id}/` : ""}$summary${on.params.size ? `?${on.params}` : ""}`;
    return iheAuditEvent(
      {
        type: EVENT_TYPES.rest,
        action: "E",
        interaction: "operation",
        entity: [
          ...(patient ? [patientEntity({ reference: `Patient/${patient}` })] : []),
          queryEntity(on.body === undefined ? request : `${request} ${JSON.stringify(on.body)}`, "$summary"),
          ...(document?.identifier ? [objectEntity({ identifier: document.identifier }, { code: "3", display: "Report" })] : []),
        ],
      },
      on,
    );
  },
};
