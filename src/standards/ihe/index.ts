// The IHE family's public face for other standards: the AuditEvent shape its profiles share
// (IPS audits $summary the same way). MHD and PDQm are declared through their own plugin.ts.
export { EVENT_TYPES, type IheAudit, iheAuditEvent, objectEntity, patientEntity, queryEntity } from "./audit-event";
