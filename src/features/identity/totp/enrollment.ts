// A user's own second factor, from a console session: start (a new secret, as text and as an
// otpauth:// URI), confirm with a first code (the factor is on; ten recovery codes shown once),
// new recovery codes or turning it off (each with a current code or a recovery code, so a
// borrowed session cannot remove it), and an administrator's reset for a lost phone.
import type { Env } from "../../../platform/env";
import { ApiError, conflict, notFound } from "../../../platform/errors";
import type { OrgData } from "../../../platform/org-data";
import type { Principal } from "../../../platform/principal";
import { decryptCredentials, encryptCredentials } from "../../connectors";
import type { UserRow } from "../tables";
import { UserStore } from "../users";
import { acceptedStep, newRecoveryCodes, newTotpSecret, recoveryCodeHash, totpUri } from "./codes";
import { TotpStore } from "./store";

/** The secret is sealed for its user: a sealed value copied to another row does not open. */
const aad = (user: Pick<UserRow, "orgId" | "id">) => `totp:${user.orgId}:${user.id}`;
export const sealTotpSecret = async (env: Env, user: UserRow, secret: string) => encryptCredentials(env, aad(user), { secret });
export const openTotpSecret = async (env: Env, user: UserRow, sealed: string) => (await decryptCredentials(env, aad(user), sealed)).secret ?? "";

/** A code proving the factor: six digits from the app, or one unused recovery code. */
export interface FactorProof {
  code?: string | undefined;
  recovery_code?: string | undefined;
}

export interface TotpStatus {
  enabled: boolean;
  enabled_at: string | null;
  recovery_codes_left: number;
  pending: boolean;
}

export const totpStatus = (row: UserRow): TotpStatus => ({ enabled: row.totpSecretEnc !== null, enabled_at: row.totpEnabledAt, recovery_codes_left: row.totpRecoveryHashes?.length ?? 0, pending: row.totpPendingEnc !== null });

const wrongCode = () => new ApiError(422, "INVALID_TOTP_CODE", "The code is not right (or was already used): enter the current code from the app", [{ path: "code", message: "not the current code" }]);
const notAUser = () => new ApiError(403, "USER_SESSION_REQUIRED", "Only a user signed in to the console has a second factor");

/** The signed-in person's own row: the second factor is a user's, never a key's. */
async function self(data: OrgData, principal: Principal): Promise<UserRow> {
  const row = principal.user ? await new UserStore(data.control).get(data.orgId, principal.user.id) : undefined;
  if (!row) throw notAUser();
  return row;
}

export async function myTotp(data: OrgData, principal: Principal): Promise<TotpStatus> {
  return totpStatus(await self(data, principal));
}

export async function startTotpEnrollment(data: OrgData, principal: Principal): Promise<{ secret: string; otpauth_uri: string }> {
  const row = await self(data, principal);
  if (row.totpSecretEnc) throw conflict("Two-factor sign-in is already on: turn it off first to use another app", "TOTP_ALREADY_ENABLED");
  const secret = newTotpSecret();
  await new TotpStore(data.control).startEnrollment(data.orgId, row.id, await sealTotpSecret(data.env, row, secret));
  return { secret, otpauth_uri: totpUri(secret, row.email) };
}

export async function confirmTotpEnrollment(data: OrgData, principal: Principal, code: string, now = Date.now()): Promise<{ recovery_codes: string[] }> {
  const row = await self(data, principal);
  if (row.totpSecretEnc) throw conflict("Two-factor sign-in is already on", "TOTP_ALREADY_ENABLED");
  if (!row.totpPendingEnc) throw conflict("No set-up is in progress: start one first", "TOTP_NOT_STARTED");
  const step = await acceptedStep(await openTotpSecret(data.env, row, row.totpPendingEnc), code, null, now);
  if (step === null) throw wrongCode();
  const { codes, hashes } = await newRecoveryCodes();
  if (!(await new TotpStore(data.control).confirm(row.id, row.totpPendingEnc, step, hashes, new Date(now).toISOString()))) {
    throw conflict("The set-up changed meanwhile (started again in another window): start again", "TOTP_NOT_STARTED");
  }
  return { recovery_codes: codes };
}

/**
 * Whether `proof` proves `row`'s factor now, spending what it used (the time step, or the recovery
 * code). Shared by the second step of sign-in and by the changes below.
 */
export async function proveFactor(env: Env, store: TotpStore, row: UserRow, proof: FactorProof, now = Date.now()): Promise<"code" | "recovery_code" | null> {
  if (!row.totpSecretEnc) return null;
  if (proof.code !== undefined) {
    const step = await acceptedStep(await openTotpSecret(env, row, row.totpSecretEnc), proof.code, row.totpLastStep, now);
    return step !== null && (await store.spendStep(row.id, step)) ? "code" : null;
  }
  if (proof.recovery_code !== undefined) {
    const hashes = row.totpRecoveryHashes ?? [];
    const hash = await recoveryCodeHash(proof.recovery_code);
    return hashes.includes(hash) && (await store.spendRecoveryCode(row.id, hashes, hash)) ? "recovery_code" : null;
  }
  return null;
}

async function proven(data: OrgData, principal: Principal, proof: FactorProof): Promise<{ row: UserRow; store: TotpStore }> {
  const row = await self(data, principal);
  if (!row.totpSecretEnc) throw conflict("Two-factor sign-in is off", "TOTP_NOT_ENABLED");
  const store = new TotpStore(data.control);
  if (!(await proveFactor(data.env, store, row, proof))) throw wrongCode();
  return { row, store };
}

export async function disableMyTotp(data: OrgData, principal: Principal, proof: FactorProof): Promise<void> {
  const { row, store } = await proven(data, principal, proof);
  await store.clear(data.orgId, row.id);
}

export async function renewRecoveryCodes(data: OrgData, principal: Principal, proof: FactorProof): Promise<{ recovery_codes: string[] }> {
  const { row, store } = await proven(data, principal, proof);
  const { codes, hashes } = await newRecoveryCodes();
  await store.replaceRecoveryCodes(row.id, hashes);
  return { recovery_codes: codes };
}

/** An administrator turns a user's second factor off (a lost phone); the user sets it up again. */
export async function resetUserTotp(data: OrgData, userId: string): Promise<UserRow> {
  if (!(await new TotpStore(data.control).clear(data.orgId, userId))) throw notFound("User not found", "USER_NOT_FOUND");
  const row = await new UserStore(data.control).get(data.orgId, userId);
  if (!row) throw notFound("User not found", "USER_NOT_FOUND");
  return row;
}
