// Request and response shapes of the access-policy API (snake_case, as the rest of the management
// API): zod checks the shape, validate.ts what the rules mean (types, criteria, paths: 422).
import { z } from "@hono/zod-openapi";
import type { PolicyRule } from "./rules";
import type { AccessPolicyRow } from "./tables";

const FieldPaths = z
  .array(z.string().min(1).max(200))
  .max(50)
  .optional();

const Rule = z
  .object({
    resource_type: z.string().min(1).max(64).openapi({ description: 'A FHIR R4 resource type, or "*" for every type', example: "Observation" }),
    readonly: z.boolean().optional().openapi({ description: "Reads and searches only: creates, updates and deletes are refused (403)" }),
    criteria: z
      .string()
      .min(1)
      .max(2000)
      .optional()
      .openapi({ description: "A FHIR search of the rule's type a resource must match (token, string, uri, reference and date parameters; no chains)", example: "Observation?category=vital-signs" }),
    compartment: z
      .union([
        z.object({ patient: z.string().min(1).max(100).openapi({ example: "Patient/123" }) }).strict(),
        z.object({ group: z.string().min(1).max(100).openapi({ example: "Group/cohort-1" }) }).strict(),
      ])
      .optional()
      .openapi({ description: "Only resources in this patient's compartment, or in a compartment of a patient the Group lists as an active member" }),
    hidden_fields: FieldPaths.openapi({ description: "Element paths removed from every read, search, history, $everything and export; kept as stored on updates", example: ["Patient.telecom"] }),
    readonly_fields: FieldPaths.openapi({ description: "Element paths kept as stored on updates (not set on creates)", example: ["Patient.identifier"] }),
  })
  .strict()
  .openapi("AccessPolicyRule");

export const AccessPolicyBody = z
  .object({
    name: z.string().trim().min(1).max(200),
    description: z.string().max(2000).optional(),
    resources: z.array(Rule).min(1).max(100).openapi({ description: "The rules: a type no rule names is out of reach; a resource is reached through any rule of its type that admits it" }),
  })
  .strict()
  .openapi("AccessPolicyBody");

export const ASSIGNEE_KINDS = ["api-keys", "users", "client-applications"] as const;
export type AssigneeKind = (typeof ASSIGNEE_KINDS)[number];

const Assignee = z.object({ kind: z.enum(ASSIGNEE_KINDS), id: z.string(), name: z.string() }).openapi("AccessPolicyAssignee");

export const AccessPolicySchema = z
  .object({
    id: z.string(),
    name: z.string(),
    description: z.string().nullable(),
    resources: z.array(Rule),
    created_at: z.string(),
    created_by: z.string().nullable(),
    updated_at: z.string(),
    updated_by: z.string().nullable(),
  })
  .openapi("AccessPolicy");

export const AccessPolicyDetailSchema = AccessPolicySchema.extend({
  assigned_to: z.array(Assignee).openapi({ description: "The API keys, users and client applications acting under the policy" }),
}).openapi("AccessPolicyDetail");

export const AssignmentSchema = z
  .object({ access_policy_id: z.string().nullable(), kind: z.enum(ASSIGNEE_KINDS), id: z.string(), name: z.string() })
  .openapi("AccessPolicyAssignment");

export const PolicyIdParam = z.object({ id: z.string().openapi({ param: { name: "id", in: "path" } }) });
export const AssignmentParams = PolicyIdParam.extend({
  kind: z.enum(ASSIGNEE_KINDS).openapi({ param: { name: "kind", in: "path" } }),
  principal_id: z.string().openapi({ param: { name: "principal_id", in: "path" }, description: "The API key's, user's or client application's id" }),
});

export type AccessPolicyRequest = z.infer<typeof AccessPolicyBody>;
type RuleBody = z.infer<typeof Rule>;

/** A rule of the body as stored (rules.ts). */
export function ruleOf(r: RuleBody): PolicyRule {
  return {
    resourceType: r.resource_type,
    ...(r.readonly !== undefined ? { readonly: r.readonly } : {}),
    ...(r.criteria !== undefined ? { criteria: r.criteria } : {}),
    ...(r.compartment ? { compartment: r.compartment } : {}),
    ...(r.hidden_fields?.length ? { hiddenFields: r.hidden_fields } : {}),
    ...(r.readonly_fields?.length ? { readonlyFields: r.readonly_fields } : {}),
  };
}

function presentRule(r: PolicyRule): RuleBody {
  return {
    resource_type: r.resourceType,
    ...(r.readonly !== undefined ? { readonly: r.readonly } : {}),
    ...(r.criteria !== undefined ? { criteria: r.criteria } : {}),
    ...(r.compartment ? { compartment: r.compartment } : {}),
    ...(r.hiddenFields ? { hidden_fields: r.hiddenFields } : {}),
    ...(r.readonlyFields ? { readonly_fields: r.readonlyFields } : {}),
  };
}

export function presentPolicy(row: AccessPolicyRow): z.infer<typeof AccessPolicySchema> {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    resources: row.resources.map(presentRule),
    created_at: row.createdAt,
    created_by: row.createdBy,
    updated_at: row.updatedAt,
    updated_by: row.updatedBy,
  };
}
