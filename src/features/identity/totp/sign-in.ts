// The second step of a password sign-in with TOTP: the challenge from the first step and a code
// from the app (or a recovery code). Refusals answer 401 as the first step does; a wrong code
// counts as a failed sign-in (five lock the account, as wrong passwords do), so six digits cannot be
// guessed through it. A challenge is spent by the sign-in it completes.
import { ApiError } from "../../../platform/errors";
import type { Env } from "../../../platform/env";
import type { OrgContexts } from "../../../platform/org-context";
import { controlStore } from "../../../platform/org-data";
import { lockedForSeconds, lockMs } from "../lockout";
import { sha256Hex } from "../tokens";
import { audit, completePasswordSignIn, refused, type SignedIn } from "../use-cases/sign-in";
import { UserStore } from "../users";
import { type FactorProof, proveFactor } from "./enrollment";
import { TotpStore } from "./store";

export interface SecondFactorSignIn extends FactorProof {
  organization_id: string;
  challenge: string;
}

const expired = () => new ApiError(401, "SIGN_IN_EXPIRED", "This sign-in has expired or was already completed: sign in again with your password");
const wrongCode = (retryAfterSeconds = 0) => refused(retryAfterSeconds, "INVALID_TOTP_CODE", "The code is not right (or was already used)");

export async function signInWithSecondFactor(env: Env, contexts: OrgContexts, input: SecondFactorSignIn, now = Date.now()): Promise<SignedIn> {
  const control = controlStore(env);
  const totp = new TotpStore(control);
  const users = new UserStore(control);
  const challengeHash = await sha256Hex(input.challenge);
  const userId = await totp.challenged(input.organization_id, challengeHash, new Date(now));
  const user = userId ? await users.get(input.organization_id, userId) : undefined;
  if (!user) throw expired();
  if (user.status !== "active" || !user.totpSecretEnc) {
    await audit(contexts, user, "4", "UNAUTHORIZED: the user is not active, or has no second factor any more");
    throw refused();
  }
  const locked = lockedForSeconds(user.lockedUntil, now);
  if (locked) {
    await audit(contexts, user, "4", "UNAUTHORIZED: sign-in locked after repeated failures");
    throw refused(locked);
  }
  const proof = await proveFactor(env, totp, user, input, now);
  if (!proof) {
    const failures = await users.recordFailure(user.id);
    const lock = lockMs(failures);
    if (lock) await users.lock(user.id, new Date(now + lock).toISOString());
    await audit(contexts, user, "4", `UNAUTHORIZED: wrong ${input.recovery_code !== undefined ? "recovery code" : "TOTP code"} (${failures} consecutive failures)`);
    throw wrongCode(lock ? Math.ceil(lock / 1000) : 0);
  }
  if (!(await totp.spendChallenge(user.id, challengeHash, new Date(now)))) throw expired();
  return completePasswordSignIn(env, contexts, user, proof === "code" ? "password+totp" : "password+recovery_code", now);
}
