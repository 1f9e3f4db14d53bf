// Password sign-in to the console: the org's user by email, the password checked with scrypt,
// then a console session bound to the user (tenancy's sessions, cookie and lifetimes). Every
// refusal answers the same 401 (unknown email, wrong password, disabled, locked, not yet
// accepted), so it tells nobody which emails exist; a locked account adds Retry-After. Attempts on
// a known user are audited in their organization's trail (console_session.sign_in).
import { ApiError } from "../../../platform/errors";
import type { Env } from "../../../platform/env";
import type { OrgContexts } from "../../../platform/org-context";
import { controlStore } from "../../../platform/org-data";
import { recordManagementAction } from "../../audit";
import { ConsoleSessionStore, type ConsoleSessionView, presentSession, sessionLifetimes } from "../../tenancy";
import { lockedForSeconds, lockMs } from "../lockout";
import { DUMMY_HASH, hashPassword, needsRehash, verifyPassword } from "../password";
import type { UserRow } from "../tables";
import { challengeSecondFactor, type SecondFactorRequired } from "../totp/challenge";
import { UserStore } from "../users";
import { userPrincipal } from "./principal";

export interface PasswordSignIn {
  organization_id: string;
  email: string;
  password: string;
}

export interface SignedIn {
  sessionId: string;
  maxAgeSeconds: number;
  view: ConsoleSessionView;
}

/** A refused sign-in step: 401, with Retry-After while the account is locked. */
export const refused = (retryAfterSeconds = 0, code = "UNAUTHORIZED", message = "Invalid email or password") =>
  new ApiError(401, code, message, [], retryAfterSeconds ? { "Retry-After": String(retryAfterSeconds) } : {});

export async function signInWithPassword(env: Env, contexts: OrgContexts, input: PasswordSignIn, now = Date.now()): Promise<SignedIn | SecondFactorRequired> {
  const control = controlStore(env);
  const store = new UserStore(control);
  const user = await store.findByEmail(input.organization_id, input.email);
  if (user?.status !== "active" || !user.passwordHash) {
    // As slow as a real check, so the answer's timing does not tell which emails exist.
    await verifyPassword(input.password, DUMMY_HASH);
    if (user) await audit(contexts, user, "4", "UNAUTHORIZED: the user is not active");
    throw refused();
  }
  const locked = lockedForSeconds(user.lockedUntil, now);
  if (locked) {
    await audit(contexts, user, "4", "UNAUTHORIZED: sign-in locked after repeated failures");
    throw refused(locked);
  }
  if (!(await verifyPassword(input.password, user.passwordHash))) {
    const failures = await store.recordFailure(user.id);
    const lock = lockMs(failures);
    if (lock) await store.lock(user.id, new Date(now + lock).toISOString());
    await audit(contexts, user, "4", `UNAUTHORIZED: wrong password (${failures} consecutive failures)`);
    throw refused(lock ? Math.ceil(lock / 1000) : 0);
  }
  // The one moment the password is at hand: a hash made under older, weaker parameters is replaced.
  if (needsRehash(user.passwordHash)) await store.replacePasswordHash(user.id, user.passwordHash, await hashPassword(input.password));
  // The password was right; with a second factor, sign-in continues at /sign-in/totp. The failure
  // count stays until then, so the second step's failures lock the account as the password's do.
  if (user.totpSecretEnc) return challengeSecondFactor(control, user, now);
  return completePasswordSignIn(env, contexts, user, "password", now);
}

/** The last step of a password sign-in (with its second factor when the user has one): the session, counted and audited. */
export async function completePasswordSignIn(env: Env, contexts: OrgContexts, user: UserRow, method: "password" | "password+totp" | "password+recovery_code", now = Date.now()): Promise<SignedIn> {
  await new UserStore(controlStore(env)).recordSuccess(user.id, new Date(now).toISOString());
  const signedIn = await openUserSession(env, user, now);
  await audit(contexts, user, "0", undefined, method);
  return signedIn;
}

/**
 * A console session bound to `user`, who has just proven who they are (a password here, an
 * OpenID Connect sign-in in sso/flow.ts): the same session, lifetimes and view either way.
 */
export async function openUserSession(env: Env, user: UserRow, now = Date.now()): Promise<SignedIn> {
  const lifetimes = sessionLifetimes(env);
  const sessions = new ConsoleSessionStore(controlStore(env));
  const { id, row } = await sessions.create(user.orgId, { userId: user.id }, now, lifetimes.maxSeconds);
  const found = await sessions.findByHash(row.idHash);
  if (!found) throw new Error("the session just created was not found");
  return { sessionId: id, maxAgeSeconds: lifetimes.maxSeconds, view: presentSession(userPrincipal(found.user ?? user), found, env) };
}

/** A sign-in attempt in the user's organization's trail, with how it was made. */
export async function audit(contexts: OrgContexts, user: UserRow, outcome: "0" | "4", reason?: string, method = "password"): Promise<void> {
  await recordManagementAction(await contexts.forOrg(user.orgId), userPrincipal(user), { action: "console_session.sign_in", outcome, detail: { sign_in_method: method }, ...(reason ? { reason } : {}) });
}
