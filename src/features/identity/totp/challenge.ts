// The first step's answer for a user with a second factor: a challenge token (256 random bits,
// kept as its SHA-256) that the second step presents with the code, good for five minutes.
import type { Database } from "../../../platform/db/client";
import type { UserRow } from "../tables";
import { sha256Hex } from "../tokens";
import { base64url } from "../../../platform/base64url";
import { TotpStore } from "./store";

export const CHALLENGE_TTL_MS = 5 * 60_000;

export interface SecondFactorRequired {
  second_factor: "totp";
  challenge: string;
  expires_at: string;
}

export async function challengeSecondFactor(control: Database, user: UserRow, now: number): Promise<SecondFactorRequired> {
  const challenge = `sfc_${base64url(crypto.getRandomValues(new Uint8Array(32)))}`;
  const expiresAt = await new TotpStore(control).createChallenge(user.orgId, user.id, await sha256Hex(challenge), new Date(now), CHALLENGE_TTL_MS);
  return { second_factor: "totp", challenge, expires_at: expiresAt };
}
