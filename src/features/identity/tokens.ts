// One-time invitation tokens: 256 random bits shown once, stored only as their SHA-256 (WebCrypto).
import { bytesToHex } from "@noble/hashes/utils.js";
import { base64url } from "../../platform/base64url";

export const INVITATION_PREFIX = "inv_";
export const INVITATION_PATTERN = /^inv_[A-Za-z0-9_-]{43}$/;
export const INVITATION_TTL_MS = 7 * 24 * 60 * 60 * 1000;

export function newInvitationToken(): string {
  return INVITATION_PREFIX + base64url(crypto.getRandomValues(new Uint8Array(32)));
}

export async function sha256Hex(value: string): Promise<string> {
  return bytesToHex(new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(value))));
}
