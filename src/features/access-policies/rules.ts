// What an access policy's rules permit (pure: the Groups a rule names are read beforehand). Modelled
// on Medplum's AccessPolicy: a rule names a resource type (or "*") and narrows it; a type no rule
// names is out of reach. A resource is reached through any rule of its type that admits it (its
// criteria match, it lies in the rule's patients' compartments), written through any such rule that
// is not read-only. The fields the rules of its type hide (all of them: hiding wins) are removed from
// what the principal is shown and kept as stored when it writes; read-only fields are kept as stored.
import { type AccessDecision, type Criteria, PERMIT, type Resource, type ScopeBranch, type SearchParamUse, type SearchScope, matchesCriteria, patientsOf } from "../fhir";
import { type FieldPath, expressionReads, hideFields, keepFields } from "./hidden-fields";

/** A rule as stored and as the API takes it (schemas.ts names its fields in snake_case). */
export interface PolicyRule {
  /** A resource type, or "*" for every type. */
  resourceType: string;
  /** Reads and searches only: creates, updates and deletes are refused. */
  readonly?: boolean;
  /** A FHIR search of the rule's type (`Observation?category=vital-signs`) a resource must match. */
  criteria?: string;
  /** Only resources in this patient's compartment, or in the compartment of a patient the Group lists. */
  compartment?: { patient: string } | { group: string };
  /** Element paths (`Patient.telecom`, `note`) removed from what is shown, never written by the principal. */
  hiddenFields?: string[];
  /** Element paths the principal sees but cannot change (kept as stored; not set on a create). */
  readonlyFields?: string[];
}

export interface CompiledRule {
  resourceType: string;
  readonly: boolean;
  criteria?: { text: string; query: string; match: Criteria };
  /** Ids: the patient's, or the Group's (its members read per request). */
  compartment?: { patient: string } | { group: string };
  hidden: FieldPath[];
  readonlyFields: FieldPath[];
}

export interface CompiledPolicy {
  id: string;
  name: string;
  rules: CompiledRule[];
}

/** The active Patient members of each Group the rules name (a Group not found: no members). */
export type GroupMembers = ReadonlyMap<string, ReadonlySet<string>>;

type Action = "read" | "search" | "create" | "update" | "delete" | "export";
const WRITES = new Set<Action>(["create", "update", "delete"]);

export const rulesFor = (policy: CompiledPolicy, type: string): CompiledRule[] => policy.rules.filter((r) => r.resourceType === type || r.resourceType === "*");

/** The Groups whose members the rules need. */
export const groupsOf = (policy: CompiledPolicy): string[] => [...new Set(policy.rules.flatMap((r) => (r.compartment && "group" in r.compartment ? [r.compartment.group] : [])))];

/** The patients of a rule's compartment; undefined: the rule names none. */
function compartmentOf(rule: CompiledRule, groups: GroupMembers): ReadonlySet<string> | undefined {
  if (!rule.compartment) return undefined;
  return "patient" in rule.compartment ? new Set([rule.compartment.patient]) : (groups.get(rule.compartment.group) ?? new Set());
}

/** Whether the rule admits the resource; `patients`: the resource's patient compartments, computed once. */
function admits(rule: CompiledRule, resource: Resource, groups: GroupMembers, patients: () => string[]): boolean {
  if (rule.criteria && !(resource.resourceType === rule.resourceType && matchesCriteria(rule.criteria.match, resource))) return false;
  const compartment = compartmentOf(rule, groups);
  return !compartment || patients().some((p) => compartment.has(p));
}

function once<T>(f: () => T): () => T {
  let v: { value: T } | undefined;
  return () => {
    v ??= { value: f() };
    return v.value;
  };
}

export interface PolicyRequest {
  action: Action;
  resourceType: string;
  resource?: Resource;
  searchParams?: readonly SearchParamUse[];
}

/** The decision on one request (AccessPolicy.check): a type no rule names, a write through read-only rules, a resource no rule admits, a search by a hidden field are refused. */
export function judge(policy: CompiledPolicy, request: PolicyRequest, groups: GroupMembers): AccessDecision {
  const named = `the access policy "${policy.name}"`;
  const rules = rulesFor(policy, request.resourceType);
  if (!rules.length) return { permit: false, reason: `${named} grants no access to ${request.resourceType}` };
  const usable = WRITES.has(request.action) ? rules.filter((r) => !r.readonly) : rules;
  if (!usable.length) return { permit: false, reason: `${named} grants ${request.resourceType} read-only` };
  const { resource } = request;
  if (!resource) {
    const hidden = request.searchParams && hiddenSearchParam(policy, request.searchParams);
    return hidden ? { permit: false, reason: hidden } : PERMIT;
  }
  const patients = once(() => patientsOf(resource));
  if (usable.some((r) => admits(r, resource, groups, patients))) return PERMIT;
  return { permit: false, reason: `${resource.resourceType}/${resource.id ?? "(new)"} is outside what ${named} grants` };
}

/** Whether the principal may see the resource (AccessPolicy.filter). */
export function shows(policy: CompiledPolicy, resource: Resource, groups: GroupMembers): boolean {
  const patients = once(() => patientsOf(resource));
  return rulesFor(policy, resource.resourceType).some((r) => admits(r, resource, groups, patients));
}

/** The fields of `kind` the rules of a type name (every rule of the type: hiding wins). */
export function fieldsOf(policy: CompiledPolicy, type: string, kind: "hidden" | "readonlyFields"): FieldPath[] {
  const seen = new Set<string>();
  return rulesFor(policy, type)
    .flatMap((r) => r[kind])
    .filter((f) => (f.type === "*" || f.type === type) && !seen.has(f.text) && seen.add(f.text));
}

/** Why a search by these parameters would reveal a hidden field, or undefined. */
export function hiddenSearchParam(policy: CompiledPolicy, params: readonly SearchParamUse[]): string | undefined {
  for (const p of params) {
    const field = fieldsOf(policy, p.resourceType, "hidden").find((f) => expressionReads(p.expression, p.resourceType, f));
    if (field) return `the access policy "${policy.name}" hides ${p.resourceType}.${field.steps.map((s) => s.name).join(".")}, which searching, sorting or including by ${p.code} would reveal`;
  }
  return undefined;
}

/** The resource as the principal may see it (AccessPolicy.redact). */
export function redacted<R extends Resource>(policy: CompiledPolicy, resource: R): R {
  const hidden = fieldsOf(policy, resource.resourceType, "hidden");
  return hidden.length ? hideFields(resource, hidden) : resource;
}

/**
 * The version a write stores (AccessPolicy.restore): hidden and read-only fields as `current`
 * has them on an update; on a create, read-only fields are not set (hidden ones are stored as sent:
 * the principal may write what it cannot read back).
 */
export function restored<R extends Resource>(policy: CompiledPolicy, written: R, current: Resource | undefined): R {
  const type = written.resourceType;
  const kept = [...(current ? fieldsOf(policy, type, "hidden") : []), ...fieldsOf(policy, type, "readonlyFields")];
  return kept.length ? keepFields(written, current, kept) : written;
}

/**
 * The policy's rules as conditions of a search's query (AccessPolicy.searchScope): for each type
 * searched (or every rule, for a search of every type) the rules that reach it, each a branch (its
 * type, its criteria's query, its compartment's patients). None when a rule without criteria or
 * compartment reaches every type searched: the query then needs no condition.
 */
export function searchScopeOf(policy: CompiledPolicy, types: readonly string[], groups: GroupMembers): SearchScope[] | undefined {
  const branchOf = (rule: CompiledRule, type: string | undefined): ScopeBranch => {
    const patients = compartmentOf(rule, groups);
    return { ...(type ? { resourceType: type } : {}), ...(rule.criteria ? { query: rule.criteria.query } : {}), ...(patients ? { patients: [...patients] } : {}) };
  };
  const open = (b: ScopeBranch) => b.query === undefined && b.patients === undefined;
  if (!types.length) {
    const branches = policy.rules.map((r) => branchOf(r, r.resourceType === "*" ? undefined : r.resourceType));
    return branches.some((b) => open(b) && b.resourceType === undefined) ? undefined : [{ anyOf: branches }];
  }
  const byType = types.map((t) => rulesFor(policy, t).map((r) => branchOf(r, t)));
  if (byType.every((branches) => branches.some(open))) return undefined;
  return [{ anyOf: byType.flat() }];
}
