// Bridge credentials: `cdisb_<org id, base64url>.<bridge id>.<256 random bits, base64url>`.
// The org and bridge ids in clear let the connect route find the row (on the org's shard)
// without the X-Organization-ID header; the random part is what proves the bridge. Stored as
// SHA-256 (a fast hash suffices for 256-bit secrets, as for API keys). Never an API key
// (`cdis_…`): API keys are refused on the connect route and bridge credentials everywhere else.
import { base64url } from "../../platform/base64url";

export const BRIDGE_CREDENTIAL_PREFIX = "cdisb_";
const SECRET_BYTES = 32;
const PATTERN = /^cdisb_([A-Za-z0-9_-]{1,400})\.([0-9a-f-]{36})\.([A-Za-z0-9_-]{43})$/;
/** Characters kept in clear in listings: the prefix and the org part's start. */
const DISPLAY_LENGTH = BRIDGE_CREDENTIAL_PREFIX.length + 8;

const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });

export function generateBridgeCredential(orgId: string, bridgeId: string): string {
  return `${BRIDGE_CREDENTIAL_PREFIX}${base64url(encoder.encode(orgId))}.${bridgeId}.${base64url(crypto.getRandomValues(new Uint8Array(SECRET_BYTES)))}`;
}

/** The org and bridge a well-formed credential names, or undefined. */
export function parseBridgeCredential(credential: string): { orgId: string; bridgeId: string } | undefined {
  const match = PATTERN.exec(credential);
  if (!match) return undefined;
  try {
    const padded = (match[1] ?? "").replace(/-/g, "+").replace(/_/g, "/");
    const orgId = decoder.decode(Uint8Array.from(atob(padded + "=".repeat((4 - (padded.length % 4)) % 4)), (ch) => ch.charCodeAt(0)));
    return orgId ? { orgId, bridgeId: match[2] ?? "" } : undefined;
  } catch {
    return undefined;
  }
}

export const credentialDisplayPrefix = (credential: string): string => credential.slice(0, DISPLAY_LENGTH);

export async function hashBridgeCredential(credential: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", encoder.encode(credential)));
  return Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** Compares two hex digests without an early exit. */
export function sameDigest(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}
