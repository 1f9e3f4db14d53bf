// API schemas of the audit trail: the listing's filters and page, the retention setting.
import { z } from "@hono/zod-openapi";
import { PageQuery } from "../../platform/http/schemas";

const instant = z.string().refine((s) => !Number.isNaN(Date.parse(s)), "an ISO date or date-time");

export const AuditQuery = PageQuery.extend({
  actor: z.string().min(1).optional().openapi({ description: "API key id of who acted" }),
  action: z.string().min(1).optional().openapi({ description: "Management action (pipeline.deploy, api_key.create...) or FHIR interaction (read, create...)" }),
  entity_type: z.string().min(1).optional().openapi({ description: "Kind of entity (pipeline, api_key, agent...)" }),
  outcome: z.enum(["success", "failure"]).optional(),
  since: instant.optional().openapi({ description: "Recorded at or after" }),
  until: instant.optional().openapi({ description: "Recorded at or before" }),
});

export const AuditEventSchema = z.record(z.string(), z.unknown()).openapi("AuditEventResource", { description: "A FHIR R4 AuditEvent" });

export const AuditPage = z.object({ audit_events: z.array(AuditEventSchema), total_count: z.number().int() }).openapi("AuditPage");

export const RetentionBody = z
  .object({
    retention_days: z.number().int().min(1).max(36_500).nullable().openapi({ description: "AuditEvents older than this may be purged by the admin CLI; null keeps them forever (default)" }),
  })
  .strict()
  .openapi("AuditRetentionBody");

export const RetentionSchema = RetentionBody.extend({ updated_at: z.string().nullable(), updated_by: z.string().nullable() }).openapi("AuditRetention");
