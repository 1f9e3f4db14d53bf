// The calling organization and its effective limits.
import { createRoute, z } from "@hono/zod-openapi";
import { database } from "../../../platform/db/client";
import { notFound } from "../../../platform/errors";
import { createRouter } from "../../../platform/http/router";
import { commonErrors, security } from "../../../platform/http/schemas";
import { limitsSchema } from "../limits/config";
import { requirePermission } from "../middleware/auth";
import { OrganizationStore } from "../organizations";

const OrganizationSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    created_at: z.string(),
    limits: limitsSchema.openapi({ description: "Effective limits (defaults, environment, organization overrides)" }),
  })
  .openapi("Organization");

export const organizationRoutes = createRouter().openapi(
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
  async (c) => {
    const org = await new OrganizationStore(database(c.env.DB)).get(c.get("principal").orgId);
    if (!org) throw notFound("Organization not found");
    return c.json({ id: org.id, name: org.name, created_at: org.createdAt, limits: c.get("limits") }, 200);
  },
);
