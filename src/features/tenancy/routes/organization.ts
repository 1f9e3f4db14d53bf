// The calling organization and its effective limits.
import { createRoute } from "@hono/zod-openapi";
import { createRouter } from "../../../platform/http/router";
import { commonErrors, security } from "../../../platform/http/schemas";
import { requirePermission } from "../middleware/auth";
import { OrganizationSchema, presentOrganization } from "../schemas";
import { getOrganization } from "../use-cases/organization";
import type { AppEnv } from "../../../app-env";

export const organizationRoutes = createRouter<AppEnv>().openapi(
  createRoute({
    method: "get",
    path: "/organization",
    tags: ["Organization"],
    summary: "The calling organization and its effective limits",
    security,
    middleware: requirePermission("org:read"),
    responses: {
      200: { description: "Organization", content: { "application/json": { schema: OrganizationSchema } } },
      ...commonErrors,
    },
  }),
  async (c) => c.json(presentOrganization(await getOrganization(c.get("ctx"), c.get("principal").orgId), c.get("limits")), 200),
);
