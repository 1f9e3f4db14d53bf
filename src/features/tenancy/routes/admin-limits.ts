// Operator route behind `npm run admin -- set-limits`: an organization's limit overrides change
// only here, through the use case that leaves the AuditEvent. The OPERATOR_TOKEN, never an API key.
import { createRoute, z } from "@hono/zod-openapi";
import { createRouter } from "../../../platform/http/router";
import { commonErrors, json, notFoundError } from "../../../platform/http/schemas";
import { auditedInside } from "../../audit";
import { operatorOnly } from "../../operations";
import { limitsSchema } from "../limits/config";
import { setOrganizationLimits } from "../use-cases/set-limits";

const Overrides = z.record(z.string(), z.unknown()).openapi({
  description: "The organization's limit overrides, replacing the previous ones: any of apiPerMinute, agentChatPerMinute, copilotPerMinute, concurrentExecutions, concurrentExports, expressionSteps (positive integers; expressionSteps at most 50,000,000); {} returns to the deployment's defaults",
  example: { apiPerMinute: 2000, concurrentExecutions: 20 },
});

const LimitsChangeSchema = z
  .object({ org_id: z.string(), before: z.record(z.string(), z.number()), after: z.record(z.string(), z.number()), effective: limitsSchema })
  .openapi("OrganizationLimitsChange");

export const orgLimitsAdminRoutes = createRouter().openapi(
  createRoute({
    method: "post",
    path: "/organizations/{orgId}/limits",
    operationId: "setOrganizationLimits",
    audit: auditedInside("organization.limits_change"),
    tags: ["Operator"],
    summary: "Operator only: replace an organization's limit overrides",
    description:
      "Takes the deployment's OPERATOR_TOKEN (404 where none is set). Every change, and every refused one (400 VALIDATION_FAILED), leaves an AuditEvent in the organization's trail (action organization.limits_change, agent: the operator, entity: the organization, detail: the before and after overrides as JSON).",
    security: [{ operatorToken: [] }],
    middleware: operatorOnly,
    request: {
      params: z.object({ orgId: z.string().openapi({ param: { name: "orgId", in: "path" } }) }),
      body: { required: true, content: json(z.object({ limits: Overrides }).strict()) },
    },
    responses: { 200: { description: "Changed", content: json(LimitsChangeSchema) }, ...commonErrors, ...notFoundError },
  }),
  async (c) => c.json(await setOrganizationLimits(c.get("contexts"), c.req.valid("param").orgId, c.req.valid("json").limits), 200),
);
