// The calling organization and its effective limits.
import { createRoute, z } from "@hono/zod-openapi";
import { createRouter } from "../../../platform/http/router";
import { commonErrors, json, security } from "../../../platform/http/schemas";
import { requirePermission } from "../middleware/auth";
import { OrganizationSchema, presentOrganization } from "../schemas";
import { getOrganization } from "../use-cases/organization";
import { organizationUsage } from "../use-cases/usage";
import type { HttpEnv } from "../../../platform/http/http-env";

const Counted = z.object({ used: z.number().int(), limit: z.number().int() });
const Running = z.object({ running: z.number().int(), limit: z.number().int() });
const UsageSchema = z
  .object({
    window: z.object({ seconds: z.number().int(), resets_at: z.string() }).openapi({ description: "The current rate-limit window (fixed, aligned to the epoch)" }),
    requests: Counted.openapi({ description: "Requests the organization's API window granted so far (this one included) against apiPerMinute. Isolates take small shares of the window ahead of use, so this can exceed the requests actually served by the unspent shares (at most limit/40 per isolate)" }),
    agent_chat: Counted.openapi({ description: "The calling key's agent chat messages this window against agentChatPerMinute" }),
    copilot: Counted.openapi({ description: "The calling key's copilot requests this window against copilotPerMinute" }),
    executions: Running.openapi({ description: "Pipeline executions holding a concurrency slot against concurrentExecutions" }),
    exports: Running.openapi({ description: "Bulk Data exports running against concurrentExports" }),
  })
  .openapi("OrganizationUsage");

export const organizationRoutes = createRouter<HttpEnv>()
  .openapi(
    createRoute({
      method: "get",
      path: "/organization/usage",
      tags: ["Organization"],
      summary: "What the calling organization uses now against its limits (rate window, running executions and exports)",
      security,
      middleware: requirePermission("org:read"),
      responses: { 200: { description: "Usage", content: json(UsageSchema) }, ...commonErrors },
    }),
    async (c) => c.json(await organizationUsage(c.get("ctx"), c.get("principal"), c.get("limits")), 200),
  )
  .openapi(
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
  async (c) => c.json(presentOrganization(await getOrganization(c.get("ctx")), c.get("limits")), 200),
);
