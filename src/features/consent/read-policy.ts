// Consent enforcement on the FHIR API's reads: the store's access policy (fhir/access-policy.ts)
// built from the organization's consent policy and its patients' Consents. With `enforce_reads`
// on, a resource in a patient's compartment is shown only where the decision engine (decide.ts)
// permits the key (`Device/<key id>`) to `access` it for the declared purposes of use; with no
// Consent applying, the org's default (opt-in denies, opt-out permits). Reads it withholds are
// 404s, searches, history, $everything and exports leave it out. Break-glass (purpose BTG or
// ETREAT, by an admin or clinician key) overrides a denial. The interaction's AuditEvent names
// the Consents that withheld or were overridden and the purposes (auditNote).
// Cost: Consents are read once per request for all the patients of a page (one search per
// CONSENT_SEARCH_PATIENTS patients), then decided in-process.
import type { AccessAuditNote, AccessDecision, AccessPolicy, AccessRequest } from "../fhir";
import { PERMIT, patientsOf } from "../fhir";
import type { Resource } from "../fhir";
import type { Principal } from "../tenancy";
import { type Coding, decide } from "./decide";
import type { ConsentPolicy } from "./policy-store";

/** v3 ActReason codes that break the glass: emergency access over a patient's refusal, always audited. */
export const BREAK_GLASS_PURPOSES: readonly string[] = ["BTG", "ETREAT"];
/** Roles that may break the glass: people's keys, not systems'. */
const BREAK_GLASS_ROLES: readonly string[] = ["admin", "clinician"];
/** Never withheld by consent: the Consents themselves (consent management) and the audit trail (audit:read). */
const EXEMPT_TYPES = new Set(["Consent", "AuditEvent"]);
const READ_ACTIONS = new Set(["read", "search", "export"]);
const ACT_REASON = "http://terminology.hl7.org/CodeSystem/v3-ActReason";

export interface ConsentReadSources {
  /** The organization's consent policy (read once per request). */
  policy(): Promise<ConsentPolicy>;
  /** The active Consents of each of these patients ("Patient/<id>"), in as few searches as possible. */
  consentsOf(patients: string[]): Promise<Map<string, Resource[]>>;
}

export function consentReadPolicy(principal: Principal, purposes: readonly string[], sources: ConsentReadSources): AccessPolicy {
  let policy: Promise<ConsentPolicy> | undefined;
  const policyOnce = () => {
    policy ??= sources.policy();
    return policy;
  };
  const consents = new Map<string, Resource[]>();
  const basis = new Set<string>();
  const breaksGlass = BREAK_GLASS_ROLES.includes(principal.role) && purposes.some((p) => BREAK_GLASS_PURPOSES.includes(p));
  const purposeCodings: Coding[] = purposes.map((code) => ({ system: ACT_REASON, code }));
  const actors = [`Device/${principal.keyId}`];

  /** Reads the Consents of the patients not seen yet in this request, all in one go. */
  async function prefetch(patients: string[]): Promise<void> {
    const missing = [...new Set(patients)].filter((p) => !consents.has(p));
    if (!missing.length) return;
    const found = await sources.consentsOf(missing);
    for (const p of missing) consents.set(p, found.get(p) ?? []);
  }

  const patientRefsOf = (request: { resource?: Resource; patient?: string }) =>
    request.patient !== undefined ? [`Patient/${request.patient}`] : request.resource ? patientsOf(request.resource).map((id) => `Patient/${id}`) : [];

  /** Whether every patient the resource is about permits the access; notes what decided. */
  function judge(type: string, resource: Resource | undefined, patients: string[], p: ConsentPolicy): AccessDecision {
    const labels = (resource?.meta as { security?: Coding[] } | undefined)?.security;
    for (const patient of patients) {
      const decision = decide(
        {
          patient,
          actors,
          action: "access",
          purposes: purposeCodings,
          data: { resourceTypes: [type], ...(labels ? { securityLabels: labels } : {}), ...(resource?.id ? { references: [`${type}/${resource.id}`] } : {}) },
        },
        consents.get(patient) ?? [],
        p.defaultPolicy,
      );
      if (decision.decision === "permit") continue;
      if (decision.consent) basis.add(decision.consent);
      if (breaksGlass) continue;
      return { permit: false, reason: decision.reason };
    }
    return PERMIT;
  }

  const governed = (action: string, type: string) => READ_ACTIONS.has(action) && !EXEMPT_TYPES.has(type);

  return {
    permitsAll: false,
    async check(request: AccessRequest): Promise<AccessDecision> {
      if (!governed(request.action, request.resourceType)) return PERMIT;
      const p = await policyOnce();
      if (!p.enforceReads) return PERMIT;
      const patients = patientRefsOf(request);
      if (!patients.length) return PERMIT;
      await prefetch(patients);
      return judge(request.resourceType, request.resource, patients, p);
    },
    async filter(_principal, action, items, resourceOf) {
      const p = await policyOnce();
      // Off: nothing parsed, nothing read.
      if (!p.enforceReads || !READ_ACTIONS.has(action)) return items;
      const judged = items.map((item) => {
        const resource = resourceOf(item);
        return { item, resource, patients: EXEMPT_TYPES.has(resource.resourceType) ? [] : patientRefsOf({ resource }) };
      });
      await prefetch(judged.flatMap((j) => j.patients));
      return judged.filter((j) => !j.patients.length || judge(j.resource.resourceType, j.resource, j.patients, p).permit).map((j) => j.item);
    },
    auditNote(): AccessAuditNote | undefined {
      return basis.size || purposes.length ? { basis: [...basis], purposes: [...purposes] } : undefined;
    },
  };
}
