// An organization's OpenID Connect identity providers (several: each a button on the sign-in page):
// their API shapes (validation and OpenAPI), the issuer rule, and how they are stored (the client
// secret sealed, shown only as a hint) and shown. Every lookup names the organization.
import { z } from "@hono/zod-openapi";
import { and, asc, count, eq } from "drizzle-orm";
import type { Database } from "../../../platform/db/client";
import type { Env } from "../../../platform/env";
import { conflict, notFound, validationFailed } from "../../../platform/errors";
import type { OrgData } from "../../../platform/org-data";
import { outboundPolicyOf } from "../../../platform/outbound/policy";
import type { Principal } from "../../../platform/principal";
import { decryptCredentials, encryptCredentials, maskCredentials } from "../../connectors";
import { normalizeDomain } from "./claims";
import { issuerProblem } from "./issuer";
import { ssoPaths } from "./paths";
import { type IdentityProviderRow, identityProviders, type RoleMapping, ssoSessions, ssoStates } from "../tables";

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
    id: z.string().openapi({ description: "The identity provider's id (`idp_…`): what the start's `?idp=` names", example: "idp_0f1e2d3c4b5a69788796a5b4c3d2e1f0" }),
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
    redirect_uri: z.string().openapi({ description: "The redirect URI to register with the IdP (the organization's one callback, for each of its identity providers)" }),
    post_logout_redirect_uri: z.string().openapi({ description: "The post-logout redirect URI to register with the IdP, where it sends the browser back after ending its session at the console's sign-out (OpenID Connect RP-Initiated Logout)" }),
    start_url: z.string().openapi({ description: "Where the console sends the browser to sign in with this identity provider" }),
    created_at: z.string(),
    updated_at: z.string(),
    updated_by: z.string().nullable(),
  })
  .openapi("IdentityProvider");

export const IdentityProviderListSchema = z.object({ identity_providers: z.array(IdentityProviderSchema), total_count: z.number().int() }).openapi("IdentityProviderList");

export const IdentityProviderIdParam = z.object({ id: z.string().min(1).max(64).openapi({ param: { name: "id", in: "path" }, example: "idp_0f1e2d3c4b5a69788796a5b4c3d2e1f0" }) });

const SsoOptionSchema = z
  .object({
    id: z.string(),
    display_name: z.string().openapi({ description: "The button's text", example: "Sign in with Okta" }),
    start_url: z.string().openapi({ description: "Navigate the browser here (a GET) to sign in with this identity provider" }),
  })
  .openapi("SsoOption");

export const SsoInfoSchema = z
  .object({
    enabled: z.boolean().openapi({ description: "Whether the organization has at least one enabled identity provider" }),
    identity_providers: z.array(SsoOptionSchema).openapi({ description: "Its enabled identity providers, oldest first: one button each" }),
  })
  .openapi("SsoInfo");

/** At most this many identity providers per organization. */
export const MAX_IDENTITY_PROVIDERS = 20;

const secretAad = (orgId: string) => `identity-provider:${orgId}`;

const newIdentityProviderId = () => `idp_${crypto.randomUUID().replaceAll("-", "")}`;

/** The organization's identity providers, oldest first. */
export function listIdentityProviders(control: Database, orgId: string): Promise<IdentityProviderRow[]> {
  return control.select().from(identityProviders).where(eq(identityProviders.orgId, orgId)).orderBy(asc(identityProviders.createdAt), asc(identityProviders.id)).all();
}

/** One of the organization's identity providers (another organization's id finds nothing). */
export function getIdentityProvider(control: Database, orgId: string, id: string): Promise<IdentityProviderRow | undefined> {
  return control
    .select()
    .from(identityProviders)
    .where(and(eq(identityProviders.orgId, orgId), eq(identityProviders.id, id)))
    .get();
}

export async function clientSecretOf(env: Env, row: IdentityProviderRow): Promise<string> {
  return (await decryptCredentials(env, secretAad(row.orgId), row.clientSecretEnc)).client_secret ?? "";
}

/** The console's landing page after the IdP ended its session (the post-logout redirect URI to register there). */
export const postLogoutRedirectUri = (publicBase: string) => `${publicBase}/?signed_out=sso`;

export const startUrlOf = (row: IdentityProviderRow, publicBase: string) => `${publicBase}${ssoPaths(row.orgId).start}?idp=${encodeURIComponent(row.id)}`;

export function presentIdentityProvider(row: IdentityProviderRow, publicBase: string) {
  return {
    id: row.id,
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
    redirect_uri: `${publicBase}${ssoPaths(row.orgId).callback}`,
    post_logout_redirect_uri: postLogoutRedirectUri(publicBase),
    start_url: startUrlOf(row, publicBase),
    created_at: row.createdAt,
    updated_at: row.updatedAt,
    updated_by: row.updatedBy,
  };
}

const missing = () => notFound("This organization has no identity provider with this id", "IDENTITY_PROVIDER_NOT_FOUND");

export async function readIdentityProvider(data: OrgData, id: string): Promise<IdentityProviderRow> {
  const row = await getIdentityProvider(data.control, data.orgId, id);
  if (!row) throw missing();
  return row;
}

function checkIssuer(data: OrgData, input: IdentityProviderInput): void {
  const problem = issuerProblem(input.issuer, outboundPolicyOf(data.env));
  if (problem) throw validationFailed("Invalid identity provider", [{ path: "issuer", message: problem }]);
}

async function sealedSecret(data: OrgData, secret: string) {
  return { clientSecretEnc: await encryptCredentials(data.env, secretAad(data.orgId), { client_secret: secret }), clientSecretHint: maskCredentials({ s: secret }).s ?? "****" };
}

function fieldsOf(principal: Principal, input: IdentityProviderInput, at: string) {
  const mapping: RoleMapping = { claim: input.role_mapping.claim, values: input.role_mapping.values, default: input.role_mapping.default, sync: input.role_mapping.sync };
  return {
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
}

/** Adds an identity provider to the organization (at most MAX_IDENTITY_PROVIDERS). */
export async function createIdentityProvider(data: OrgData, principal: Principal, input: IdentityProviderInput, now = new Date()): Promise<IdentityProviderRow> {
  checkIssuer(data, input);
  if (input.client_secret === undefined) throw validationFailed("Invalid identity provider", [{ path: "client_secret", message: "The client secret is required" }]);
  const [{ n } = { n: 0 }] = await data.control.select({ n: count() }).from(identityProviders).where(eq(identityProviders.orgId, data.orgId));
  if (n >= MAX_IDENTITY_PROVIDERS) throw conflict(`An organization has at most ${MAX_IDENTITY_PROVIDERS} identity providers`, "IDENTITY_PROVIDER_LIMIT");
  const at = now.toISOString();
  const row = { id: newIdentityProviderId(), orgId: data.orgId, ...fieldsOf(principal, input, at), ...(await sealedSecret(data, input.client_secret)), createdAt: at };
  await data.control.insert(identityProviders).values(row);
  return readIdentityProvider(data, row.id);
}

/** Replaces one of the organization's identity providers (the stored secret kept when none is given and the issuer and client id stay). */
export async function replaceIdentityProvider(data: OrgData, principal: Principal, id: string, input: IdentityProviderInput, now = new Date()): Promise<IdentityProviderRow> {
  checkIssuer(data, input);
  const existing = await readIdentityProvider(data, id);
  const sameClient = existing.issuer === input.issuer && existing.clientId === input.client_id;
  if (input.client_secret === undefined && !sameClient) throw validationFailed("Invalid identity provider", [{ path: "client_secret", message: "A new issuer or client id needs its client secret" }]);
  const secret = input.client_secret === undefined ? {} : await sealedSecret(data, input.client_secret);
  const updated = await data.control
    .update(identityProviders)
    .set({ ...fieldsOf(principal, input, now.toISOString()), ...secret })
    .where(and(eq(identityProviders.orgId, data.orgId), eq(identityProviders.id, id)))
    .returning({ id: identityProviders.id });
  if (!updated.length) throw missing();
  return readIdentityProvider(data, id);
}

/**
 * Removes an identity provider, its pending sign-ins and its sessions' logout records (their
 * console sessions go on; signing out then ends only them). Users keep their binding: adding the
 * same issuer again signs them in again.
 */
export async function deleteIdentityProvider(data: OrgData, id: string): Promise<void> {
  const gone = await data.control
    .delete(identityProviders)
    .where(and(eq(identityProviders.orgId, data.orgId), eq(identityProviders.id, id)))
    .returning({ id: identityProviders.id });
  if (!gone.length) throw missing();
  await data.control.delete(ssoStates).where(and(eq(ssoStates.orgId, data.orgId), eq(ssoStates.idpId, id)));
  await data.control.delete(ssoSessions).where(and(eq(ssoSessions.orgId, data.orgId), eq(ssoSessions.idpId, id)));
}
