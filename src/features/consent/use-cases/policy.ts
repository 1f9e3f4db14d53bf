// Reading and changing the organization's consent policy (the change is admin-only, checked by the route).
import type { OrgData } from "../../../platform/org-data";
import type { Principal } from "../../tenancy";
import { type ConsentPolicy, readConsentPolicy, writeConsentPolicy } from "../policy-store";
import type { DefaultPolicy } from "../decide";

export const getConsentPolicy = (data: OrgData): Promise<ConsentPolicy> => readConsentPolicy(data);

export function setConsentPolicy(data: OrgData, principal: Principal, body: { default_policy: DefaultPolicy; enforce_outbound: boolean; enforce_reads?: boolean }): Promise<ConsentPolicy> {
  return writeConsentPolicy(data, { defaultPolicy: body.default_policy, enforceOutbound: body.enforce_outbound, enforceReads: body.enforce_reads ?? false }, principal.keyId);
}
