// What an ID token's claims say about the person signing in, under the organization's rules: their
// email (from the configured claim, refused when the IdP says it is unverified), whether its domain
// is allowed, and which role the claim → role mapping gives them. Pure, so it is unit tested.
import type { Role } from "../../../platform/principal";
import type { RoleMapping } from "../tables";

export type MappableRole = Exclude<Role, "service">;

/** Most privileged first: a claim with several mapped values gives the first of these that any names. */
export const ROLE_PRECEDENCE: readonly MappableRole[] = ["admin", "integration_engineer", "clinician", "auditor"];

export type Claims = Readonly<Record<string, unknown>>;

/**
 * The claim `name`: the claim of exactly that name (claim names may contain dots, as
 * `https://example.org/roles` does), else the dotted path into nested objects (Keycloak's
 * `realm_access.roles`).
 */
export function claimAt(claims: Claims, name: string): unknown {
  if (Object.hasOwn(claims, name)) return claims[name];
  if (!name.includes(".")) return undefined;
  let at: unknown = claims;
  for (const part of name.split(".")) {
    if (typeof at !== "object" || at === null || Array.isArray(at) || !Object.hasOwn(at, part)) return undefined;
    at = (at as Record<string, unknown>)[part];
  }
  return at;
}

/** A claim's values as strings: a string is one value, an array its string members; anything else none. */
export function claimValues(value: unknown): string[] {
  if (typeof value === "string") return [value];
  if (Array.isArray(value)) return value.filter((v): v is string => typeof v === "string");
  return [];
}

/** The domain of a plausible address (one `@`, no whitespace, a dot inside the domain, at most 254 characters), else undefined. */
function domainOfEmail(email: string): string | undefined {
  const at = email.indexOf("@");
  if (email.length > 254 || at < 1 || at !== email.lastIndexOf("@") || /\s/.test(email)) return undefined;
  const domain = email.slice(at + 1);
  const dot = domain.indexOf(".");
  return dot > 0 && !domain.endsWith(".") ? domain : undefined;
}

export type EmailVerdict = { ok: true; email: string; domain: string } | { ok: false; code: "EMAIL_MISSING" | "EMAIL_NOT_VERIFIED"; reason: string };

/** The email the user signs in as, lowercased; refused when missing, malformed or `email_verified: false`. */
export function emailOf(claims: Claims, emailClaim: string): EmailVerdict {
  const raw = claimAt(claims, emailClaim);
  const email = typeof raw === "string" ? raw.trim().toLowerCase() : "";
  const domain = domainOfEmail(email);
  if (!domain) return { ok: false, code: "EMAIL_MISSING", reason: `the ID token has no email address in its ${emailClaim} claim` };
  // Absent (Entra ID sends none) is accepted; an explicit false is the IdP saying it does not vouch for it.
  if (claims.email_verified === false || claims.email_verified === "false") return { ok: false, code: "EMAIL_NOT_VERIFIED", reason: `the IdP says ${email} is not verified` };
  return { ok: true, email, domain };
}

/** Lowercased, without a leading `@` or a trailing dot: how allowed domains are stored and compared. */
export const normalizeDomain = (domain: string) => domain.trim().toLowerCase().replace(/^@/, "").replace(/\.$/, "");

/** Whether `domain` may sign in: every domain when the list is empty, else exactly one listed (a subdomain is listed by itself). */
export function domainAllowed(domain: string, allowed: readonly string[]): boolean {
  if (!allowed.length) return true;
  const d = normalizeDomain(domain);
  return allowed.some((a) => normalizeDomain(a) === d);
}

/** The role the mapping gives these claims: the most privileged mapped value, else the default (null: none). */
export function mappedRole(claims: Claims, mapping: RoleMapping): MappableRole | null {
  const values = new Set(claimValues(claimAt(claims, mapping.claim)));
  const mapped = new Set<MappableRole>();
  for (const [value, role] of Object.entries(mapping.values)) if (values.has(value)) mapped.add(role);
  return ROLE_PRECEDENCE.find((r) => mapped.has(r)) ?? mapping.default;
}

/** A display name for a new user: `name`, else given and family names, else the email. */
export function displayNameOf(claims: Claims, email: string): string {
  const name = typeof claims.name === "string" ? claims.name.trim() : "";
  if (name) return name.slice(0, 200);
  const parts = [claims.given_name, claims.family_name].filter((p): p is string => typeof p === "string" && p.trim() !== "");
  return (parts.join(" ").trim() || email).slice(0, 200);
}
