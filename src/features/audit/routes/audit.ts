// /api/audit: the audit trail's listing and the organization's retention setting.
import { createRoute } from "@hono/zod-openapi";
import { createRouter } from "../../../platform/http/router";
import { commonErrors, json, security } from "../../../platform/http/schemas";
import { requirePermission } from "../../tenancy";
import type { AuditRetention } from "../retention";
import { AuditPage, AuditQuery, RetentionBody, RetentionSchema } from "../schemas";
import { listAuditEvents } from "../use-cases/list-audit";
import { getAuditRetention, setAuditRetention } from "../use-cases/retention";
import type { HttpEnv } from "../../../platform/http/http-env";
import { audited, theOrganization } from "../declarations";

const tags = ["Audit"];
const presentRetention = (r: AuditRetention) => ({ retention_days: r.retentionDays, updated_at: r.updatedAt, updated_by: r.updatedBy });

export const auditRoutes = createRouter<HttpEnv>()
  .openapi(
    createRoute({
      method: "get",
      path: "/", operationId: "listAuditEvents",
      tags,
      summary: "List AuditEvents (management actions and FHIR interactions), newest first",
      description: "Filters combine (AND). offset + limit reach back at most 1000 events; for more, search /fhir/r4/{org}/AuditEvent or export _type=AuditEvent.",
      security,
      middleware: requirePermission("audit:read"),
      request: { query: AuditQuery },
      responses: { 200: { description: "Page", content: json(AuditPage) }, ...commonErrors },
    }),
    async (c) => {
      const { events, total } = await listAuditEvents(c.get("ctx"), c.get("principal"), c.req.valid("query"));
      return c.json({ audit_events: events, total_count: total }, 200);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/retention",
      tags,
      summary: "The organization's audit retention",
      security,
      middleware: requirePermission("audit:read"),
      responses: { 200: { description: "Retention", content: json(RetentionSchema) }, ...commonErrors },
    }),
    async (c) => c.json(presentRetention(await getAuditRetention(c.get("ctx"))), 200),
  )
  .openapi(
    createRoute({
      method: "put",
      path: "/retention",
      audit: audited("audit_retention.update", theOrganization),
      tags,
      summary: "Set the audit retention (admin); only `npm run admin -- purge-audit` deletes, never the API",
      security,
      middleware: requirePermission("audit:manage"),
      request: { body: { required: true, content: json(RetentionBody) } },
      responses: { 200: { description: "Retention", content: json(RetentionSchema) }, ...commonErrors },
    }),
    async (c) => c.json(presentRetention(await setAuditRetention(c.get("ctx"), c.get("principal"), c.req.valid("json").retention_days)), 200),
  );
