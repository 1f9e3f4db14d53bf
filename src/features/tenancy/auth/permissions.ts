// Roles, permissions and scopes. A key has one role; a key with scopes is
// restricted to exactly those scopes and has none of its role's permissions.

import type { Principal, Role } from "../../../platform/principal";

export { ROLES, type Principal, type Role } from "../../../platform/principal";

export type Permission =
  | "org:read"
  | "keys:manage"
  | "fhir:read"
  | "fhir:write"
  | "fhir:configure"
  | "export:run"
  | "pipelines:read"
  | "pipelines:manage"
  | "pipelines:execute"
  | "connectors:manage"
  | "agents:read"
  | "agents:manage"
  | "agents:chat"
  | "agents:invoke"
  | "messages:ingest"
  | "messages:read"
  | "messages:manage"
  | "devices:sync"
  | "alerts:read"
  | "alerts:manage"
  | "consent:manage"
  | "audit:read"
  | "audit:manage"
  | "webhooks:manage"
  | "clients:manage"
  | "users:manage"
  /** Access policies and their assignments (features/access-policies): admins only. */
  | "policies:manage";

const ALL: readonly Permission[] = [
  "org:read", "keys:manage", "fhir:read", "fhir:write", "fhir:configure", "export:run", "pipelines:read",
  "pipelines:manage", "pipelines:execute", "connectors:manage", "agents:read", "agents:manage",
  "agents:chat", "agents:invoke", "messages:ingest", "messages:read", "messages:manage", "devices:sync",
  "alerts:read", "alerts:manage",
  "consent:manage", "audit:read", "audit:manage", "webhooks:manage", "clients:manage", "users:manage", "policies:manage",
];

const ROLE_PERMISSIONS: Record<Role, ReadonlySet<Permission>> = {
  admin: new Set(ALL),
  // Clinicians work with patient data and use agents; they do not administer the org.
  clinician: new Set<Permission>([
    "org:read", "fhir:read", "fhir:write", "pipelines:read", "pipelines:execute",
    "agents:read", "agents:chat", "agents:invoke", "devices:sync", "alerts:read", "alerts:manage",
  ]),
  // Service keys are for systems: the bridge, integrations, batch jobs.
  service: new Set<Permission>([
    "org:read", "fhir:read", "fhir:write", "export:run", "pipelines:read", "pipelines:execute",
    "agents:invoke", "messages:ingest", "messages:read", "alerts:read",
  ]),
  // Integration engineers build and run the data flows (pipelines, connectors, destinations,
  // webhooks, devices, messages, FHIR data); they do not manage keys, users or the audit trail.
  integration_engineer: new Set<Permission>([
    "org:read", "fhir:read", "fhir:write", "pipelines:read", "pipelines:manage", "pipelines:execute",
    "connectors:manage", "messages:ingest", "messages:read", "messages:manage", "devices:sync",
    "webhooks:manage", "agents:read", "alerts:read",
  ]),
  // Auditors look, never touch: read-only over the org, its data and its trail.
  auditor: new Set<Permission>([
    "org:read", "fhir:read", "audit:read", "messages:read", "pipelines:read", "alerts:read", "agents:read",
  ]),
};

const AGENT_SCOPE = /^agent\/([A-Za-z0-9_-]{1,64}):execute$/;
/** Scopes a key may carry; each pattern names one family of restricted access. */
const SCOPE_PATTERNS = [AGENT_SCOPE];

export function isValidScope(scope: string): boolean {
  return SCOPE_PATTERNS.some((p) => p.test(scope));
}

export const agentExecuteScope = (agentId: string) => `agent/${agentId}:execute`;

/** The agent an `agent/<id>:execute` scope names: a key may only be scoped to an agent of its org. */
export function scopedAgentId(scope: string): string | undefined {
  return AGENT_SCOPE.exec(scope)?.[1];
}


/** Every permission `p` holds (the console hides what is not listed; the API still checks). */
export function permissionsOf(p: Principal): Permission[] {
  return ALL.filter((permission) => hasPermission(p, permission));
}

export function hasPermission(p: Principal, permission: Permission): boolean {
  return p.scopes.length === 0 && ROLE_PERMISSIONS[p.role].has(permission);
}

export function hasScope(p: Principal, scope: string): boolean {
  return p.scopes.includes(scope);
}

/**
 * Whether `p` may do what needs `permission` or, where the route accepts one, `scope`; when not,
 * the 403 message naming what is missing: a scoped key's scopes, not its role, decide.
 */
export function denial(p: Principal, permission: Permission, scope?: string): string | undefined {
  if (hasPermission(p, permission) || (scope !== undefined && hasScope(p, scope))) return undefined;
  if (p.scopes.length) {
    const held = `This API key is restricted to the scopes ${p.scopes.join(", ")}`;
    return scope ? `${held} and lacks the scope ${scope} this request needs` : `${held}; none grants ${permission}, which this request needs`;
  }
  const role = `The ${p.role} role lacks the permission ${permission}`;
  return scope ? `${role} and the key has no scope ${scope}` : role;
}
