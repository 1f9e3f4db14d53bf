// The organization's consent policy row (consent_policies), with the defaults of an org that set none.
import { eq } from "drizzle-orm";
import type { OrgData } from "../../platform/org-data";
import type { DefaultPolicy } from "./decide";
import { consentPolicies } from "./tables";

export interface ConsentPolicy {
  defaultPolicy: DefaultPolicy;
  enforceOutbound: boolean;
  enforceReads: boolean;
  updatedAt: string | null;
  updatedBy: string | null;
}

/** An org that configured nothing: no consent means permit (opt-out), outbound nodes check only when configured to. */
export const DEFAULT_CONSENT_POLICY: ConsentPolicy = { defaultPolicy: "opt-out", enforceOutbound: false, enforceReads: false, updatedAt: null, updatedBy: null };

/** How long this isolate trusts what it last read of an org's `enforce_reads` (other isolates' changes show up within it). */
export const READ_ENFORCEMENT_CACHE_MS = 10_000;
const readEnforcement = new Map<string, { enforce: boolean; until: number }>();

/** What this isolate recently read or wrote of the org's `enforce_reads`; undefined when it does not know. */
export function knownReadEnforcement(orgId: string, now = Date.now()): boolean | undefined {
  const known = readEnforcement.get(orgId);
  return known && known.until > now ? known.enforce : undefined;
}

function noteReadEnforcement(orgId: string, policy: ConsentPolicy): ConsentPolicy {
  readEnforcement.set(orgId, { enforce: policy.enforceReads, until: Date.now() + READ_ENFORCEMENT_CACHE_MS });
  return policy;
}

export async function readConsentPolicy(data: OrgData): Promise<ConsentPolicy> {
  const [row] = await data.db.select().from(consentPolicies).where(eq(consentPolicies.orgId, data.orgId)).limit(1);
  if (!row) return noteReadEnforcement(data.orgId, DEFAULT_CONSENT_POLICY);
  return noteReadEnforcement(data.orgId, { defaultPolicy: row.defaultPolicy as DefaultPolicy, enforceOutbound: row.enforceOutbound, enforceReads: row.enforceReads, updatedAt: row.updatedAt, updatedBy: row.updatedBy });
}

export async function writeConsentPolicy(data: OrgData, policy: { defaultPolicy: DefaultPolicy; enforceOutbound: boolean; enforceReads: boolean }, by: string): Promise<ConsentPolicy> {
  const row = { orgId: data.orgId, ...policy, updatedAt: new Date().toISOString(), updatedBy: by };
  await data.db
    .insert(consentPolicies)
    .values(row)
    .onConflictDoUpdate({ target: consentPolicies.orgId, set: { defaultPolicy: row.defaultPolicy, enforceOutbound: row.enforceOutbound, enforceReads: row.enforceReads, updatedAt: row.updatedAt, updatedBy: row.updatedBy } });
  return noteReadEnforcement(data.orgId, { ...policy, updatedAt: row.updatedAt, updatedBy: by });
}
