// The organization's consent policy row (consent_policies), with the defaults of an org that set none.
import { eq } from "drizzle-orm";
import type { OrgData } from "../../platform/org-data";
import type { DefaultPolicy } from "./decide";
import { consentPolicies } from "./tables";

export interface ConsentPolicy {
  defaultPolicy: DefaultPolicy;
  enforceOutbound: boolean;
  updatedAt: string | null;
  updatedBy: string | null;
}

/** An org that configured nothing: no consent means permit (opt-out), outbound nodes check only when configured to. */
export const DEFAULT_CONSENT_POLICY: ConsentPolicy = { defaultPolicy: "opt-out", enforceOutbound: false, updatedAt: null, updatedBy: null };

export async function readConsentPolicy(data: OrgData): Promise<ConsentPolicy> {
  const [row] = await data.db.select().from(consentPolicies).where(eq(consentPolicies.orgId, data.orgId)).limit(1);
  if (!row) return DEFAULT_CONSENT_POLICY;
  return { defaultPolicy: row.defaultPolicy as DefaultPolicy, enforceOutbound: row.enforceOutbound, updatedAt: row.updatedAt, updatedBy: row.updatedBy };
}

export async function writeConsentPolicy(data: OrgData, policy: { defaultPolicy: DefaultPolicy; enforceOutbound: boolean }, by: string): Promise<ConsentPolicy> {
  const row = { orgId: data.orgId, ...policy, updatedAt: new Date().toISOString(), updatedBy: by };
  await data.db
    .insert(consentPolicies)
    .values(row)
    .onConflictDoUpdate({ target: consentPolicies.orgId, set: { defaultPolicy: row.defaultPolicy, enforceOutbound: row.enforceOutbound, updatedAt: row.updatedAt, updatedBy: row.updatedBy } });
  return { ...policy, updatedAt: row.updatedAt, updatedBy: by };
}
