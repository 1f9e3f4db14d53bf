// Operator route of the audit trail: the retention purge that `npm run admin -- purge-audit` drives.
// It takes the OPERATOR_TOKEN, never an API key: no organization key can delete AuditEvents.
import { createRoute, z } from "@hono/zod-openapi";
import { createRouter } from "../../../platform/http/router";
import { commonErrors, conflictError, json, notFoundError } from "../../../platform/http/schemas";
import { auditedInside } from "../declarations";
import { operatorOnly } from "../../operations";
import { purgeExpiredAudits } from "../use-cases/purge";
import type { HttpEnv } from "../../../platform/http/http-env";

const PurgeReport = z
  .object({ org_id: z.string(), retention_days: z.number().int(), before: z.string(), purged: z.number().int() })
  .openapi("AuditPurgeReport");

export const auditAdminRoutes = createRouter<HttpEnv>().openapi(
  createRoute({
    method: "post",
    path: "/organizations/{orgId}/audit/purge", operationId: "purgeOrganizationAudit",
    audit: auditedInside("audit.purge"),
    tags: ["Operator"],
    summary: "Operator only: erase an organization's AuditEvents older than its retention",
    description:
      "Takes the deployment's OPERATOR_TOKEN (404 where none is set). 409 AUDIT_RETENTION_KEEP when the organization keeps its AuditEvents (the default). The purge leaves its own AuditEvent (action audit.purge), refused or not.",
    security: [{ operatorToken: [] }],
    middleware: operatorOnly,
    request: { params: z.object({ orgId: z.string().openapi({ param: { name: "orgId", in: "path" } }) }) },
    responses: { 200: { description: "Purged", content: json(PurgeReport) }, ...commonErrors, ...notFoundError, ...conflictError },
  }),
  async (c) => c.json(await purgeExpiredAudits(c.get("contexts"), c.req.valid("param").orgId), 200),
);
