// Operator routes: they take the deployment's OPERATOR_TOKEN (a secret), never an organization's
// API key, and answer 404 where it is unset. The OpenAPI document lists them as operator-only
// (security scheme operatorToken, tag Operator). `npm run admin -- move-org` drives them.
import { createRoute, z } from "@hono/zod-openapi";
import { createMiddleware } from "hono/factory";
import { ApiError } from "../../../platform/errors";
import type { AppEnv } from "../../../app-env";
import { createRouter } from "../../../platform/http/router";
import { commonErrors, conflictError, json, notFoundError } from "../../../platform/http/schemas";
import { forgetCachedKeys } from "../../tenancy/middleware/auth";
import { settingsOf } from "../../../platform/settings";
import { moveOrganization } from "../../../platform/org-move";

async function sameSecret(a: string, b: string): Promise<boolean> {
  const digest = async (s: string) => crypto.subtle.digest("SHA-256", new TextEncoder().encode(s));
  const [x, y] = await Promise.all([digest(a), digest(b)]);
  return crypto.subtle.timingSafeEqual(x, y);
}

/** The operator token check every operator route takes (features' own operator routes too). */
export const operatorOnly = createMiddleware<AppEnv>(async (c, next) => {
  const token = settingsOf(c.env).OPERATOR_TOKEN;
  if (!token) throw new ApiError(404, "NOT_FOUND", "Not found");
  const given = c.req.header("authorization")?.match(/^Bearer (.+)$/)?.[1];
  if (!given || !(await sameSecret(given, token))) throw new ApiError(401, "UNAUTHORIZED", "This route needs the operator token");
  await next();
});

const MoveReport = z
  .object({
    orgId: z.string(),
    from: z.string(),
    to: z.string(),
    tables: z.array(z.object({ table: z.string(), rows: z.number().int(), checksum: z.string() })),
  })
  .openapi("MoveReport");

export const adminRoutes = createRouter<AppEnv>().openapi(
  createRoute({
    method: "post",
    operationId: "moveOrganization", path: "/organizations/{orgId}/move",
    tags: ["Operator"],
    summary: "Operator only: move an organization's data to another shard",
    description:
      "Takes the deployment's OPERATOR_TOKEN as bearer token, never an API key (404 where none is set). Answers when the move is done: " +
      "writes of the organization answer 503 ORG_MOVING meanwhile; a failed verification (409 MOVE_VERIFICATION_FAILED) leaves it where it was.",
    security: [{ operatorToken: [] }],
    middleware: operatorOnly,
    request: {
      params: z.object({ orgId: z.string().openapi({ param: { name: "orgId", in: "path" } }) }),
      body: { required: true, content: json(z.object({ shard: z.string().min(1).openapi({ description: "A DATA_SHARDS name" }) }).strict()) },
    },
    responses: { 200: { description: "Moved", content: json(MoveReport) }, ...commonErrors, ...notFoundError, ...conflictError },
  }),
  async (c) => {
    const report = await moveOrganization(c.env, c.req.valid("param").orgId, c.req.valid("json").shard, { onDirectoryChange: forgetCachedKeys });
    return c.json(report, 200);
  },
);
