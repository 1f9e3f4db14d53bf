// The audit feature's public surface: what other features may import (nothing reaches its internals).
export { audited, byId, newId, theOrganization, notAudited, AUDITED_BY_FHIR_STORE, auditedInside } from "./declarations";
export { operatorPrincipal } from "./operators";
export { recordManagementAction } from "./record";
export type { ManagementActionInput } from "./event";
