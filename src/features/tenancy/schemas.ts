// The tenancy API's zod schemas (validation and OpenAPI) and how stored rows are
// presented in responses.
import { z } from "@hono/zod-openapi";
import { ROLES, isValidScope } from "./auth/permissions";
import { type Limits, limitsSchema } from "./limits/config";
import type { ApiKeyRow, OrganizationRow } from "./tables";

export const ApiKeySchema = z
  .object({
    id: z.string().uuid(),
    name: z.string(),
    role: z.enum(ROLES),
    scopes: z.array(z.string()),
    key_prefix: z.string().openapi({ description: "First characters of the key, to tell keys apart" }),
    status: z.enum(["active", "revoked"]),
    created_at: z.string(),
    created_by: z.string().nullable(),
    last_used_at: z.string().nullable(),
    revoked_at: z.string().nullable(),
    access_policy_id: z.string().nullable().openapi({ description: "The access policy it acts under (PUT /api/v1/access-policies/{id}/assignments/...); null: none" }),
    owner_user_id: z.string().nullable().openapi({ description: "A personal key's user: it acts as them (their current role), and stops when they are disabled; null: the organization's key" }),
  })
  .openapi("ApiKey");

export const CreatedApiKeySchema = ApiKeySchema.extend({
  key: z.string().openapi({ description: "The secret. Shown only in this response; store it safely." }),
}).openapi("CreatedApiKey");

export const CreateApiKeyBody = z
  .object({
    name: z.string().trim().min(1).max(200),
    role: z.enum(ROLES),
    scopes: z
      .array(z.string().max(200).refine(isValidScope, { message: "Unknown scope; expected agent/<agent_id>:execute" }))
      .max(50)
      .default([])
      .openapi({ description: "Restricts the key to these scopes only, e.g. agent/<agent_id>:execute (the agent must exist in the organization)" }),
  })
  .strict()
  .openapi("CreateApiKey");

export const CreatePersonalApiKeyBody = CreateApiKeyBody.omit({ role: true }).openapi("CreatePersonalApiKey");

export const ApiKeyIdParam = z.object({ id: z.string().openapi({ param: { name: "id", in: "path" } }) });

export function presentApiKey(row: ApiKeyRow): z.infer<typeof ApiKeySchema> {
  return {
    id: row.id,
    name: row.name,
    role: row.role,
    scopes: row.scopes,
    key_prefix: row.keyPrefix,
    status: row.revokedAt ? "revoked" : "active",
    created_at: row.createdAt,
    created_by: row.createdBy,
    last_used_at: row.lastUsedAt,
    revoked_at: row.revokedAt,
    access_policy_id: row.accessPolicyId,
    owner_user_id: row.ownerUserId,
  };
}

export const OrganizationSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    created_at: z.string(),
    limits: limitsSchema.openapi({ description: "Effective limits (defaults, environment, organization overrides)" }),
  })
  .openapi("Organization");

export function presentOrganization(org: OrganizationRow, limits: Limits): z.infer<typeof OrganizationSchema> {
  return { id: org.id, name: org.name, created_at: org.createdAt, limits };
}
