// The tenancy feature's public surface: what other features may import (nothing reaches its internals).
export { type Principal, agentExecuteScope, denial, hasPermission, type Role } from "./auth/permissions";
export { requirePermission, requirePermissionOrScope, authorize, forgetCachedKeys, forgetCachedKeysOf } from "./middleware/auth";
export { limitsOfOrg } from "./limits/org-limits";
export { countWebhookDelivery } from "./middleware/rate-limit";
export { orgGate, releaseSlot, acquireSlotOrThrow, heldSlot } from "./limits/gate";
export type { Limits } from "./limits/config";
export { permissionsOf } from "./auth/permissions";
export { ConsoleSessionStore } from "./sessions/session-store";
export { clearedSessionCookie, sessionCookie, sessionLifetimes } from "./sessions/session-policy";
export { ConsoleSessionSchema, type ConsoleSessionView } from "./sessions/schemas";
export { presentSession } from "./sessions/present-session";
export { sessionEndsAt, SESSION_COOKIE } from "./sessions/session-policy";
export { SESSION_ID_PATTERN, type SessionWithKey } from "./sessions/session-store";
export { hashApiKey as hashSessionId } from "./auth/api-key-crypto";
export { authenticateApiKey } from "./auth/authenticate-key";
export { apiKeyPolicyAssignments, type PolicyHolder } from "./use-cases/key-access-policy";
