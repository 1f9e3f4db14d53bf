// IPS (International Patient Summary, HL7 FHIR IG STU2): the $summary document builder, its
// section rules and checks, the operation and the pipeline node (docs/ips.md).
export { buildSummary, IPS_BUNDLE_PROFILE, type RecordEntry } from "./document";
export { checkIpsDocument, type IpsIssue } from "./checks";
export { IPS_OPERATIONS } from "./operation";
export { IPS_NODES } from "./nodes";
