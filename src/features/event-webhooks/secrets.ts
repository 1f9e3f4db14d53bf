// An endpoint's signing secrets: Standard Webhooks `whsec_<base64 of 32 random bytes>`, kept
// AES-GCM encrypted in its row (the connectors' key, bound to the org and endpoint). The newest is
// current; a rotation keeps the one before valid until its `expires_at` (the overlap), and while
// both are valid every request carries both signatures. Secrets past their overlap are dropped.
import type { Env } from "../../platform/env";
import { decryptCredentials, encryptCredentials } from "../connectors";

/** Bytes of key material per secret (the specification asks for 24 to 64). */
const SECRET_BYTES = 32;

/** How long the secret before a rotation keeps signing by default, and at most. */
export const DEFAULT_OVERLAP_HOURS = 24;
export const MAX_OVERLAP_HOURS = 7 * 24;

export interface SigningSecret {
  secret: string;
  created_at: string;
  /** Null for the current secret; a replaced one signs until then. */
  expires_at: string | null;
}

export function newSecret(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(SECRET_BYTES));
  return `whsec_${btoa(String.fromCharCode(...bytes))}`;
}

/** Secrets still valid at `now`, newest first. */
export function validSecrets(secrets: readonly SigningSecret[], now = Date.now()): SigningSecret[] {
  return secrets.filter((s) => s.expires_at === null || Date.parse(s.expires_at) > now);
}

/** After a rotation: the new secret first, the others valid until `overlapHours` from now at the latest (0: at once). */
export function rotated(secrets: readonly SigningSecret[], secret: string, overlapHours: number, now = Date.now()): SigningSecret[] {
  const until = new Date(now + overlapHours * 3_600_000).toISOString();
  const kept = validSecrets(secrets, now)
    .filter(() => overlapHours > 0)
    .map((s) => ({ ...s, expires_at: s.expires_at !== null && s.expires_at < until ? s.expires_at : until }));
  return [{ secret, created_at: new Date(now).toISOString(), expires_at: null }, ...kept];
}

const aadOf = (orgId: string, endpointId: string) => `webhook-endpoint:${orgId}:${endpointId}`;

export async function sealSecrets(env: Env, orgId: string, endpointId: string, secrets: readonly SigningSecret[]): Promise<string> {
  return encryptCredentials(env, aadOf(orgId, endpointId), { secrets: JSON.stringify(secrets) });
}

export async function unsealSecrets(env: Env, orgId: string, endpointId: string, sealed: string): Promise<SigningSecret[]> {
  const { secrets } = await decryptCredentials(env, aadOf(orgId, endpointId), sealed);
  return JSON.parse(secrets ?? "[]") as SigningSecret[];
}
