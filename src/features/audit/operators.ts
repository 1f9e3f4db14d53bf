// Who the AuditEvents of operator actions name: the operator, never an organization's key. Through
// the service's operator routes (OPERATOR_TOKEN), or by the admin CLI straight on the databases
// (create-org, create-key, revoke-key). Both carry the agent id `operator`; the name says which.
import type { Principal } from "../../platform/principal";

/** The operator, through an operator route (`npm run admin -- set-limits`, `purge-audit`, `move-org`). */
export const operatorPrincipal = (orgId: string): Principal => ({ orgId, keyId: "operator", keyName: "admin CLI (OPERATOR_TOKEN)", role: "admin", scopes: [] });

/** The operator, through the admin CLI's commands that work on the databases themselves (`create-key`...). */
export const cliPrincipal = (orgId: string): Principal => ({ orgId, keyId: "operator", keyName: "admin CLI (database)", role: "admin", scopes: [] });
