// Changing an organization's limit overrides (an operator action: `npm run admin -- set-limits`
// calls POST /admin/organizations/{orgId}/limits). The one way limits change: the new overrides
// are validated, stored in the control database, and an AuditEvent (organization.limits_change,
// a DICOM security alert) records the operator, the organization and the before/after values;
// refused changes are recorded too. Running API keys see the change when their cached lookup
// expires (middleware/auth.ts).
import type { OrgContexts } from "../../../platform/org-context";
import { validationFailed } from "../../../platform/errors";
import { recordManagementAction } from "../../audit";
import { operatorPrincipal } from "../../audit";
import { type LimitOverrides, limitOverridesSchema, resolveLimits } from "../limits/config";
import { OrganizationStore } from "../organizations";

export interface LimitsChange {
  org_id: string;
  before: LimitOverrides;
  after: LimitOverrides;
  /** The limits in force once the change is seen (overrides over the deployment's defaults). */
  effective: ReturnType<typeof resolveLimits>;
}

export async function setOrganizationLimits(contexts: OrgContexts, orgId: string, overrides: unknown): Promise<LimitsChange> {
  // 404 ORGANIZATION_NOT_FOUND for an unknown org: there is no trail to write to.
  const data = await contexts.forOrg(orgId);
  const principal = operatorPrincipal(orgId);
  const organizations = new OrganizationStore(data.control);
  const before = ((await organizations.get(orgId))?.limits ?? {}) as LimitOverrides;
  const parsed = limitOverridesSchema.strict().safeParse(overrides);
  if (!parsed.success) {
    const details = parsed.error.issues.map((i) => ({ path: i.path.join(".") || "(root)", message: i.message }));
    await recordManagementAction(data, principal, {
      action: "organization.limits_change",
      entityId: orgId,
      outcome: "4",
      reason: details.map((d) => `${d.path}: ${d.message}`).join("; "),
      detail: { before: JSON.stringify(before) },
    });
    throw validationFailed("Invalid limits", details);
  }
  const after = parsed.data;
  await organizations.setLimits(orgId, after);
  await recordManagementAction(data, principal, {
    action: "organization.limits_change",
    entityId: orgId,
    outcome: "0",
    detail: { before: JSON.stringify(before), after: JSON.stringify(after) },
  });
  return { org_id: orgId, before, after, effective: resolveLimits(data.env, after) };
}
