// Accepting an invitation: the one-time token (only its hash is stored) and a password (and,
// optionally, the name the person goes by) make the invited user active. The token names its
// user, hence its organization: it opens no other.
import { ApiError } from "../../../platform/errors";
import type { OrgContexts } from "../../../platform/org-context";
import { controlStore } from "../../../platform/org-data";
import type { Env } from "../../../platform/env";
import { recordManagementAction } from "../../audit";
import { hashPassword } from "../password";
import type { UserRow } from "../tables";
import { INVITATION_PATTERN, sha256Hex } from "../tokens";
import { UserStore } from "../users";
import { userPrincipal } from "./principal";

const invalid = () => new ApiError(400, "INVALID_INVITATION", "The invitation token is unknown, already used or expired");

export async function acceptInvitation(env: Env, contexts: OrgContexts, input: { token: string; password: string; name?: string | undefined }, now = Date.now()): Promise<UserRow> {
  if (!INVITATION_PATTERN.test(input.token)) throw invalid();
  const store = new UserStore(controlStore(env));
  const hash = await sha256Hex(input.token);
  const user = await store.findByInvitation(hash);
  if (user?.status !== "invited" || !user.invitationExpiresAt || Date.parse(user.invitationExpiresAt) <= now) throw invalid();
  if (!(await store.accept(user.id, hash, await hashPassword(input.password), input.name))) throw invalid();
  await recordManagementAction(await contexts.forOrg(user.orgId), userPrincipal(user), { action: "user.accept_invitation", entityId: user.id, outcome: "0" });
  return (await store.get(user.orgId, user.id)) ?? user;
}
