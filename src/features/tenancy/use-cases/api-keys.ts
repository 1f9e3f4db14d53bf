// API key administration: create (its scopes checked against the org's agents), list,
// read and revoke (the revoked key stops working at once in this isolate).
import type { OrgData } from "../../../platform/org-data";
import { ApiError, notFound } from "../../../platform/errors";
import { existingAgentIds } from "../../agents";
import { ApiKeyStore } from "../api-keys";
import { checkScopedAgents, scopedAgentIds } from "../auth/key-scopes";
import type { Principal, Role } from "../auth/permissions";
import { forgetCachedKey } from "../middleware/auth";
import type { ApiKeyRow } from "../tables";

export interface ApiKeyRequest {
  name: string;
  role: Role;
  scopes: string[];
}

const missing = () => notFound("API key not found", "API_KEY_NOT_FOUND");

/** The new key and its secret, which is never stored; `createdBy` is the calling key. */
export async function createApiKey(data: OrgData, principal: Principal, req: ApiKeyRequest, ownerUserId?: string): Promise<{ row: ApiKeyRow; secret: string }> {
  // Agents live in the org's shard; keys in the control database.
  checkScopedAgents(req.scopes, await existingAgentIds(data.db, principal.orgId, scopedAgentIds(req.scopes)));
  return new ApiKeyStore(data.control).create({ orgId: principal.orgId, name: req.name, role: req.role, scopes: req.scopes, createdBy: principal.keyId, ...(ownerUserId ? { ownerUserId } : {}) });
}

/**
 * The person signed in to the console (a user's session: its principal's key id is the user's),
 * who alone manages their personal keys: not an organization key, nor a personal key itself.
 */
function signedInUser(principal: Principal): string {
  if (!principal.user || principal.keyId !== principal.user.id) throw new ApiError(403, "USER_SESSION_REQUIRED", "Personal API keys are managed by their user, signed in to the console");
  return principal.user.id;
}

/** A key that acts as the signed-in person (their role, always their current one). */
export function createPersonalApiKey(data: OrgData, principal: Principal, req: Omit<ApiKeyRequest, "role">): Promise<{ row: ApiKeyRow; secret: string }> {
  return createApiKey(data, principal, { ...req, role: principal.role }, signedInUser(principal));
}

export function listPersonalApiKeys(data: OrgData, principal: Principal, limit: number, offset: number): Promise<{ rows: ApiKeyRow[]; total: number }> {
  return new ApiKeyStore(data.control).list(data.orgId, limit, offset, signedInUser(principal));
}

export async function revokePersonalApiKey(data: OrgData, principal: Principal, id: string): Promise<ApiKeyRow> {
  const row = await new ApiKeyStore(data.control).revoke(data.orgId, id, signedInUser(principal));
  if (!row) throw missing();
  forgetCachedKey(row.keyHash);
  return row;
}

export function listApiKeys(data: OrgData, limit: number, offset: number): Promise<{ rows: ApiKeyRow[]; total: number }> {
  const { orgId } = data;
  return new ApiKeyStore(data.control).list(orgId, limit, offset);
}

export async function getApiKey(data: OrgData, id: string): Promise<ApiKeyRow> {
  const { orgId } = data;
  const row = await new ApiKeyStore(data.control).get(orgId, id);
  if (!row) throw missing();
  return row;
}

/** Marks the key revoked and drops it from this isolate's key cache (others drop it within the cache's lifetime). */
export async function revokeApiKey(data: OrgData, id: string): Promise<ApiKeyRow> {
  const { orgId } = data;
  const row = await new ApiKeyStore(data.control).revoke(orgId, id);
  if (!row) throw missing();
  forgetCachedKey(row.keyHash);
  return row;
}
