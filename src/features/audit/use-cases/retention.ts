// Reading and changing the organization's audit retention (the change is admin-only, checked by the
// route). Changing it deletes nothing: only the operator purge does (purge.ts).
import type { OrgData } from "../../../platform/org-data";
import type { Principal } from "../../tenancy";
import { type AuditRetention, readRetention, writeRetention } from "../retention";

export const getAuditRetention = (data: OrgData): Promise<AuditRetention> => readRetention(data);

export const setAuditRetention = (data: OrgData, principal: Principal, retentionDays: number | null): Promise<AuditRetention> => writeRetention(data, retentionDays, principal.keyId);
