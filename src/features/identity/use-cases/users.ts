// User administration: invite (a one-time token returned once, its hash kept), list and change
// (role, name, fhirUser, disable/enable, forget the IdP binding). Everything is in the caller's organization.
import { ApiError, conflict, notFound } from "../../../platform/errors";
import type { OrgData } from "../../../platform/org-data";
import type { Principal, Role } from "../../../platform/principal";
import { forgetCachedKeysOf } from "../../tenancy";
import type { UserRow } from "../tables";
import { INVITATION_TTL_MS, newInvitationToken, sha256Hex } from "../tokens";
import { type UserChanges, UserStore } from "../users";

export interface InviteRequest {
  email: string;
  name: string;
  role: Role;
  fhir_user?: string | undefined;
}

export interface UpdateRequest {
  role?: Role | undefined;
  name?: string | undefined;
  fhir_user?: string | null | undefined;
  status?: "active" | "disabled" | undefined;
  unlock?: true | undefined;
  identity_provider?: null | undefined;
}

const missing = () => notFound("User not found", "USER_NOT_FOUND");
const taken = (email: string) => conflict(`A user with the email ${email} already exists in this organization`, "USER_EXISTS");

export async function inviteUser(data: OrgData, principal: Principal, req: InviteRequest): Promise<{ row: UserRow; token: string }> {
  const store = new UserStore(data.control);
  if (await store.findByEmail(data.orgId, req.email)) throw taken(req.email);
  const token = newInvitationToken();
  const input = {
    orgId: data.orgId,
    email: req.email,
    name: req.name,
    role: req.role,
    fhirUser: req.fhir_user,
    invitationHash: await sha256Hex(token),
    invitationExpiresAt: new Date(Date.now() + INVITATION_TTL_MS).toISOString(),
    createdBy: principal.user ? `user:${principal.user.id}` : principal.keyId,
  };
  try {
    return { row: await store.create(input), token };
  } catch (e) {
    // Two invitations of one email at once: the unique index keeps one.
    if (String(e).includes("UNIQUE")) throw taken(req.email);
    throw e;
  }
}

export function listUsers(data: OrgData, limit: number, offset: number): Promise<{ rows: UserRow[]; total: number }> {
  return new UserStore(data.control).list(data.orgId, limit, offset);
}

export async function updateUser(data: OrgData, id: string, req: UpdateRequest): Promise<UserRow> {
  const store = new UserStore(data.control);
  const row = await store.get(data.orgId, id);
  if (!row) throw missing();
  // An invited user becomes active by accepting the invitation (setting a password), not by a switch.
  if (req.status && row.status === "invited") throw new ApiError(409, "USER_INVITED", "The user has not accepted the invitation yet");
  const changes: UserChanges = { role: req.role, name: req.name, fhirUser: req.fhir_user, status: req.status, identityProvider: req.identity_provider, ...(req.unlock ? { failedSignIns: 0, lockedUntil: null } : {}) };
  // The organization keeps at least one active admin user: nobody demotes or disables the last.
  const removesAnAdmin = row.role === "admin" && row.status === "active" && ((req.role !== undefined && req.role !== "admin") || req.status === "disabled");
  const updated = await store.update(data.orgId, id, changes, removesAnAdmin);
  if (updated === "last-admin") throw conflict("This is the organization's last active admin; make another user admin first", "LAST_ADMIN");
  if (!updated) throw missing();
  // Their personal keys act as they now are: at once in this isolate.
  forgetCachedKeysOf(id);
  return updated;
}
