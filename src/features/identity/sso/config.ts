// An organization's OpenID Connect identity provider: its API shapes (validation and OpenAPI), the
// issuer rule, and how it is stored (the client secret sealed, shown only as a hint) and shown.
import { z } from "@hono/zod-openapi";
import { eq } from "drizzle-orm";
import type { Database } from "../../../platform/db/client";
import type { Env } from "../../../platform/env";
import { notFound, validationFailed } from "../../../platform/errors";
import type { OrgData } from "../../../platform/org-data";
import { outboundPolicyOf } from "../../../platform/outbound/policy";
import type { Principal } from "../../../platform/principal";
import { decryptCredentials, encryptCredentials, maskCredentials } from "../../connectors";
import { normalizeDomain } from "./claims";
import { issuerProblem } from "./issuer";
import { ssoPaths } from "./paths";
import { type IdentityProviderRow, identityProviders, type RoleMapping, ssoStates } from "../tables";

export const DEFAULT_SCOPES = ["openid", "email", "profile"];
const MAPPABLE_ROLES = ["admin", "clinician", "integration_engineer", "auditor"] as const;
const mappableRole = z.enum(MAPPABLE_ROLES);

/** RFC 6749 3.3 scope-token characters. */
const SCOPE_TOKEN = /^[\x21\x23-\x5B\x5D-\x7E]{1,100}$/;
const DOMAIN = /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z][a-z0-9-]{0,62}$/;

const RoleMappingBody = z
  .object({
    claim: z.string().trim().min(1).max(200).openapi({ description: "The ID token claim whose values decide the role (`groups`, `roles`, `realm_access.roles`)", example: "groups" }),
    values: z
      .record(z.string().min(1).max(256).refine((k) => k !== "__proto__", "Not a claim value this service maps"), mappableRole)
      .refine((v) => Object.keys(v).length <= 200, "At most 200 values")
      .default({})
      .openapi({ description: "Claim value → role. Several mapped values: the most privileged role wins (admin, integration_engineer, clinician, auditor)", example: { "cdis-admins": "admin", "cdis-clinicians": "clinician" } }),
    default: mappableRole.nullable().default(null).openapi({ description: "The role when no value maps; null refuses the sign-in (NO_ROLE_MAPPED)" }),
    sync: z.boolean().default(false).openapi({ description: "Apply the mapping at every sign-in (the IdP manages roles), not only when a user is created" }),
  })
  .strict()
  .openapi("SsoRoleMapping");

export const IdentityProviderBody = z
  .object({
    display_name: z.string().trim().min(1).max(100).openapi({ description: "What the console's sign-in button says", example: "Sign in with Okta" }),
    issuer: z.string().trim().min(1).max(500).openapi({ description: "The issuer identifier, exactly as its discovery document's `issuer` (https; http only for a host OUTBOUND_ALLOW lists)", example: "https://example.okta.com/oauth2/default" }),
    client_id: z.string().trim().min(1).max(500),
    client_secret: z
      .string()
      .min(1)
      .max(2000)
      .optional()
      .openapi({ description: "Required when none is stored yet, and when the issuer or client id changes; omitted, the stored one is kept. Never returned: `client_secret_hint` shows its last four characters" }),
    scopes: z
      .array(z.string().regex(SCOPE_TOKEN, "Not a scope token"))
      .min(1)
      .max(30)
      .default(DEFAULT_SCOPES)
      .refine((s) => s.includes("openid"), "The scopes must include openid")
      .openapi({ description: "Requested scopes (default `openid email profile`; add `groups` where the IdP puts groups behind it, as Okta does)" }),
    email_claim: z.string().trim().min(1).max(200).default("email").openapi({ description: "The ID token claim with the user's email (Entra ID without the optional `email` claim: `preferred_username`)" }),
    role_mapping: RoleMappingBody.default({ claim: "groups", values: {}, default: null, sync: false }),
    allowed_email_domains: z
      .array(z.string().trim().toLowerCase().transform(normalizeDomain).pipe(z.string().regex(DOMAIN, "Not a domain name")))
      .max(100)
      .default([])
      .openapi({ description: "Email domains that may sign in (exact: a subdomain is listed by itself); empty: any. Required for just-in-time provisioning", example: ["example.org"] }),
    jit_provisioning: z.boolean().default(false).openapi({ description: "Create a user at their first sign-in (email domain allowed, role mapped) instead of refusing those not yet invited" }),
    enabled: z.boolean().default(true).openapi({ description: "false: the console offers no single sign-on and the flow refuses (SSO_NOT_CONFIGURED); the configuration is kept" }),
  })
  .strict()
  .superRefine((body, ctx) => {
    if (!body.jit_provisioning) return;
    if (!body.allowed_email_domains.length) {
      ctx.addIssue({ code: "custom", path: ["allowed_email_domains"], message: "Just-in-time provisioning needs the email domains it may create users for" });
    }
    if (!Object.keys(body.role_mapping.values).length && body.role_mapping.default === null) {
      ctx.addIssue({ code: "custom", path: ["role_mapping"], message: "Just-in-time provisioning needs a role: map claim values or set a default" });
    }
  })
  .openapi("IdentityProviderInput");

export type IdentityProviderInput = z.infer<typeof IdentityProviderBody>;

export const IdentityProviderSchema = z
  .object({
    display_name: z.string(),
    issuer: z.string(),
    client_id: z.string(),
    client_secret_hint: z.string().openapi({ description: "`****` and the secret's last four characters (`****` alone for a secret under 16 characters)" }),
    scopes: z.array(z.string()),
    email_claim: z.string(),
    role_mapping: z.object({ claim: z.string(), values: z.record(z.string(), mappableRole), default: mappableRole.nullable(), sync: z.boolean() }),
    allowed_email_domains: z.array(z.string()),
    jit_provisioning: z.boolean(),
    enabled: z.boolean(),
    redirect_uri: z.string().openapi({ description: "The redirect URI to register with the IdP for this organization" }),
    start_url: z.string().openapi({ description: "Where the console sends the browser to sign in" }),
    created_at: z.string(),
    updated_at: z.string(),
    updated_by: z.string().nullable(),
  })
  .openapi("IdentityProvider");

export const SsoInfoSchema = z
  .object({
    enabled: z.boolean(),
    display_name: z.string().nullable(),
    start_url: z.string().nullable().openapi({ description: "Navigate the browser here (a GET) to sign in" }),
  })
  .openapi("SsoInfo");

const secretAad = (orgId: string) => `identity-provider:${orgId}`;

export function getIdentityProvider(control: Database, orgId: string): Promise<IdentityProviderRow | undefined> {
  return control.select().from(identityProviders).where(eq(identityProviders.orgId, orgId)).get();
}

export async function clientSecretOf(env: Env, row: IdentityProviderRow): Promise<string> {
  return (await decryptCredentials(env, secretAad(row.orgId), row.clientSecretEnc)).client_secret ?? "";
}

export function presentIdentityProvider(row: IdentityProviderRow, publicBase: string) {
  const paths = ssoPaths(row.orgId);
  return {
    display_name: row.displayName,
    issuer: row.issuer,
    client_id: row.clientId,
    client_secret_hint: row.clientSecretHint,
    scopes: row.scopes,
    email_claim: row.emailClaim,
    role_mapping: row.roleMapping,
    allowed_email_domains: row.allowedDomains,
    jit_provisioning: row.jitProvisioning,
    enabled: row.enabled,
    redirect_uri: `${publicBase}${paths.callback}`,
    start_url: `${publicBase}${paths.start}`,
    created_at: row.createdAt,
    updated_at: row.updatedAt,
    updated_by: row.updatedBy,
  };
}

const missing = () => notFound("This organization has no identity provider configured", "IDENTITY_PROVIDER_NOT_FOUND");

export async function readIdentityProvider(data: OrgData): Promise<IdentityProviderRow> {
  const row = await getIdentityProvider(data.control, data.orgId);
  if (!row) throw missing();
  return row;
}

/** Creates or replaces the organization's identity provider (the stored secret kept when none is given). */
export async function putIdentityProvider(data: OrgData, principal: Principal, input: IdentityProviderInput, now = new Date()): Promise<IdentityProviderRow> {
  const problem = issuerProblem(input.issuer, outboundPolicyOf(data.env));
  if (problem) throw validationFailed("Invalid identity provider", [{ path: "issuer", message: problem }]);
  const existing = await getIdentityProvider(data.control, data.orgId);
  const sameClient = existing && existing.issuer === input.issuer && existing.clientId === input.client_id;
  if (input.client_secret === undefined && !sameClient) {
    const message = existing ? "A new issuer or client id needs its client secret" : "The client secret is required";
    throw validationFailed("Invalid identity provider", [{ path: "client_secret", message }]);
  }
  const secret = input.client_secret === undefined ? undefined : { clientSecretEnc: await encryptCredentials(data.env, secretAad(data.orgId), { client_secret: input.client_secret }), clientSecretHint: maskCredentials({ s: input.client_secret }).s ?? "****" };
  const at = now.toISOString();
  const mapping: RoleMapping = { claim: input.role_mapping.claim, values: input.role_mapping.values, default: input.role_mapping.default, sync: input.role_mapping.sync };
  const fields = {
    displayName: input.display_name,
    issuer: input.issuer,
    clientId: input.client_id,
    scopes: [...new Set(input.scopes)],
    emailClaim: input.email_claim,
    roleMapping: mapping,
    allowedDomains: [...new Set(input.allowed_email_domains)],
    jitProvisioning: input.jit_provisioning,
    enabled: input.enabled,
    updatedAt: at,
    updatedBy: principal.user ? `user:${principal.user.id}` : principal.keyId,
  };
  if (existing) {
    await data.control
      .update(identityProviders)
      .set({ ...fields, ...(secret ?? {}) })
      .where(eq(identityProviders.orgId, data.orgId));
  } else {
    if (!secret) throw new Error("unreachable: a new identity provider without its secret");
    // Two first saves at once: the primary key keeps one, the other updates it.
    await data.control
      .insert(identityProviders)
      .values({ orgId: data.orgId, ...fields, ...secret, createdAt: at })
      .onConflictDoUpdate({ target: identityProviders.orgId, set: { ...fields, ...secret } });
  }
  const saved = await getIdentityProvider(data.control, data.orgId);
  if (!saved) throw new Error("the identity provider just saved was not found");
  return saved;
}

/** Removes the identity provider and its pending sign-ins; users keep their binding (re-adding the same IdP signs them in again). */
export async function deleteIdentityProvider(data: OrgData): Promise<void> {
  const gone = await data.control.delete(identityProviders).where(eq(identityProviders.orgId, data.orgId)).returning({ orgId: identityProviders.orgId });
  if (!gone.length) throw missing();
  await data.control.delete(ssoStates).where(eq(ssoStates.orgId, data.orgId));
}
