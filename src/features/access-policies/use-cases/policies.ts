// Access policy administration: create, list, read, replace and delete an organization's policies
// (their rules checked at save: 422 naming each problem), and assign one to an API key, a user or
// a client application. A change drops the policy from this isolate's cache at once (others within
// POLICY_CACHE_TTL_MS); a policy still assigned cannot be deleted (409 naming who holds it).
import { conflict, notFound, unprocessable } from "../../../platform/errors";
import type { OrgData } from "../../../platform/org-data";
import { userPolicyAssignments } from "../../identity";
import { clientPolicyAssignments } from "../../smart";
import { type PolicyHolder, type Principal, apiKeyPolicyAssignments } from "../../tenancy";
import { forgetPolicy } from "../cache";
import type { AccessPolicyRequest, AssigneeKind } from "../schemas";
import { ruleOf } from "../schemas";
import { AccessPolicyStore } from "../store";
import type { AccessPolicyRow } from "../tables";
import { compilePolicy } from "../validate";

const missing = () => notFound("Access policy not found", "ACCESS_POLICY_NOT_FOUND");

type Assignments = {
  set(control: OrgData["control"], orgId: string, id: string, accessPolicyId: string | null, from?: string): Promise<PolicyHolder | undefined>;
  holding(control: OrgData["control"], orgId: string, accessPolicyId: string): Promise<PolicyHolder[]>;
};

/** Who may hold a policy, by the path segment that names them. */
const ASSIGNMENTS: Record<AssigneeKind, { assignments: Assignments; what: string }> = {
  "api-keys": { assignments: apiKeyPolicyAssignments, what: "API key (live)" },
  users: { assignments: userPolicyAssignments, what: "user" },
  "client-applications": { assignments: clientPolicyAssignments, what: "client application" },
};

export interface Assignee {
  kind: AssigneeKind;
  id: string;
  name: string;
}

/** The rules as stored, after checking them (422 with every problem at its place). */
function checkedRules(id: string, req: AccessPolicyRequest) {
  const resources = req.resources.map(ruleOf);
  const { issues } = compilePolicy({ id, name: req.name, resources });
  if (issues.length) throw unprocessable(`The access policy's rules are invalid: ${issues.map((i) => `${i.path}: ${i.message}`).join("; ")}`, issues);
  return resources;
}

export async function createPolicy(data: OrgData, principal: Principal, req: AccessPolicyRequest): Promise<AccessPolicyRow> {
  const id = crypto.randomUUID();
  const resources = checkedRules(id, req);
  const now = new Date().toISOString();
  return new AccessPolicyStore(data.control).create({
    id,
    orgId: data.orgId,
    name: req.name,
    description: req.description ?? null,
    resources,
    createdAt: now,
    createdBy: principal.keyId,
    updatedAt: now,
    updatedBy: principal.keyId,
  });
}

export function listPolicies(data: OrgData, limit: number, offset: number) {
  return new AccessPolicyStore(data.control).list(data.orgId, limit, offset);
}

export async function getPolicy(data: OrgData, id: string): Promise<AccessPolicyRow> {
  const row = await new AccessPolicyStore(data.control).get(data.orgId, id);
  if (!row) throw missing();
  return row;
}

/** The policy with who acts under it. */
export async function getPolicyDetail(data: OrgData, id: string): Promise<{ row: AccessPolicyRow; assignees: Assignee[] }> {
  const row = await getPolicy(data, id);
  return { row, assignees: await assigneesOf(data, id) };
}

/** Replaces the policy's name, description and rules; every store of the org sees the new rules within the cache's lifetime. */
export async function replacePolicy(data: OrgData, principal: Principal, id: string, req: AccessPolicyRequest): Promise<AccessPolicyRow> {
  const resources = checkedRules(id, req);
  const row = await new AccessPolicyStore(data.control).update(data.orgId, id, {
    name: req.name,
    description: req.description ?? null,
    resources,
    updatedAt: new Date().toISOString(),
    updatedBy: principal.keyId,
  });
  if (!row) throw missing();
  forgetPolicy(data.orgId, id);
  return row;
}

export async function deletePolicy(data: OrgData, id: string): Promise<AccessPolicyRow> {
  await getPolicy(data, id);
  const holders = await assigneesOf(data, id);
  if (holders.length) {
    throw conflict(`The access policy is assigned to ${holders.map((h) => `${h.kind}/${h.id}`).join(", ")}: unassign it first`, "ACCESS_POLICY_IN_USE");
  }
  const row = await new AccessPolicyStore(data.control).delete(data.orgId, id);
  if (!row) throw missing();
  forgetPolicy(data.orgId, id);
  return row;
}

async function assigneesOf(data: OrgData, id: string): Promise<Assignee[]> {
  const lists = await Promise.all(
    Object.entries(ASSIGNMENTS).map(async ([kind, { assignments }]) =>
      (await assignments.holding(data.control, data.orgId, id)).map((h) => ({ kind: kind as AssigneeKind, id: h.id, name: h.name })),
    ),
  );
  return lists.flat();
}

/** The principal now acts under the policy (replacing any other it had); both are this organization's, or 404. */
export async function assignPolicy(data: OrgData, policyId: string, kind: AssigneeKind, principalId: string): Promise<Assignee & { accessPolicyId: string | null }> {
  await getPolicy(data, policyId);
  const { assignments, what } = ASSIGNMENTS[kind];
  const held = await assignments.set(data.control, data.orgId, principalId, policyId);
  if (!held) throw notFound(`No ${what} ${principalId} in this organization`, "ASSIGNEE_NOT_FOUND");
  return { kind, id: held.id, name: held.name, accessPolicyId: held.accessPolicyId };
}

/** The principal no longer acts under the policy (404 unless it did). */
export async function unassignPolicy(data: OrgData, policyId: string, kind: AssigneeKind, principalId: string): Promise<Assignee & { accessPolicyId: string | null }> {
  await getPolicy(data, policyId);
  const { assignments, what } = ASSIGNMENTS[kind];
  const held = await assignments.set(data.control, data.orgId, principalId, null, policyId);
  if (!held) throw notFound(`No ${what} ${principalId} in this organization acts under this access policy`, "ASSIGNMENT_NOT_FOUND");
  return { kind, id: held.id, name: held.name, accessPolicyId: held.accessPolicyId };
}
