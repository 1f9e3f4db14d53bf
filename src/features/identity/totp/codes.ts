// TOTP (RFC 6238) as authenticator apps speak it, through otplib: SHA-1, six digits, 30-second
// steps, a Base32 secret of 160 bits (RFC 4226's recommended length) handed over as an otpauth://
// URI. A code is accepted one step either side of now (a phone's clock drifts) and only after the
// step of the last code accepted, so each code works once. Recovery codes are GitHub's shape: ten
// of `xxxxx-xxxxx` (40 random bits each, hex), stored as their SHA-256 only.
import { bytesToHex } from "@noble/hashes/utils.js";
import { generateSecret, generateURI, verify } from "otplib";
import { sha256Hex } from "../tokens";

export const TOTP_ISSUER = "CDIS";
const SECRET_BYTES = 20;
/** One 30-second step either side of now. */
const TOLERANCE_SECONDS = 30;
export const RECOVERY_CODE_COUNT = 10;
export const TOTP_CODE = /^\d{6}$/;

export const newTotpSecret = (): string => generateSecret({ length: SECRET_BYTES });

/** What an authenticator app scans or is given: the issuer, the account (the user's email) and the secret. */
export const totpUri = (secret: string, account: string): string => generateURI({ issuer: TOTP_ISSUER, label: account, secret });

/** The time step the code matched (to be kept as the last one used), or null when it does not match or was used. */
export async function acceptedStep(secret: string, code: string, lastStep: number | null, now = Date.now()): Promise<number | null> {
  if (!TOTP_CODE.test(code)) return null;
  const result = await verify({ secret, token: code, epoch: Math.floor(now / 1000), epochTolerance: TOLERANCE_SECONDS, ...(lastStep === null ? {} : { afterTimeStep: lastStep }) });
  return result.valid && "timeStep" in result ? result.timeStep : null;
}

/** Fresh recovery codes, to show once, and the hashes to keep. */
export async function newRecoveryCodes(): Promise<{ codes: string[]; hashes: string[] }> {
  const codes = Array.from({ length: RECOVERY_CODE_COUNT }, () => {
    const hex = bytesToHex(crypto.getRandomValues(new Uint8Array(5)));
    return `${hex.slice(0, 5)}-${hex.slice(5)}`;
  });
  return { codes, hashes: await Promise.all(codes.map(recoveryCodeHash)) };
}

/** Typed as given (spaces, capitals, with or without the dash), hashed as issued. */
export function recoveryCodeHash(code: string): Promise<string> {
  const plain = code.toLowerCase().replace(/[\s-]/g, "");
  return sha256Hex(plain.length === 10 ? `${plain.slice(0, 5)}-${plain.slice(5)}` : plain);
}
