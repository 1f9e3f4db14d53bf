// Operator routes: they take the deployment's OPERATOR_TOKEN (a secret), never an organization's
// API key, and answer 404 where it is unset. The OpenAPI document lists them as operator-only
// (security scheme operatorToken, tag Operator). `npm run admin -- move-org` drives them.
import { createRoute, z } from "@hono/zod-openapi";
import { createMiddleware } from "hono/factory";
import { ApiError } from "../../../platform/errors";
import type { HttpEnv } from "../../../platform/http/http-env";
import { createRouter } from "../../../platform/http/router";
import { auditedInside } from "../../audit";
import { commonErrors, conflictError, json, notFoundError } from "../../../platform/http/schemas";
import { settingsOf } from "../../../platform/settings";
import { OrgMoveSchema, presentOrgMove } from "../schemas";
import { orgMoveStatus, startOrgMove } from "../use-cases/org-moves";

async function sameSecret(a: string, b: string): Promise<boolean> {
  const digest = async (s: string) => crypto.subtle.digest("SHA-256", new TextEncoder().encode(s));
  const [x, y] = await Promise.all([digest(a), digest(b)]);
  return crypto.subtle.timingSafeEqual(x, y);
}

/** The operator token check every operator route takes (features' own operator routes too). */
export const operatorOnly = createMiddleware<HttpEnv>(async (c, next) => {
  const token = settingsOf(c.env).OPERATOR_TOKEN;
  if (!token) throw new ApiError(404, "NOT_FOUND", "Not found");
  const given = c.req.header("authorization")?.match(/^Bearer (.+)$/)?.[1];
  if (!given || !(await sameSecret(given, token))) throw new ApiError(401, "UNAUTHORIZED", "This route needs the operator token");
  await next();
});

const orgParam = z.object({ orgId: z.string().openapi({ param: { name: "orgId", in: "path" } }) });
const movePath = (orgId: string) => `/admin/organizations/${encodeURIComponent(orgId)}/move`;

export const adminRoutes = createRouter<HttpEnv>()
  .openapi(
    createRoute({
      method: "post",
      operationId: "moveOrganization",
      path: "/organizations/{orgId}/move",
      audit: auditedInside("organization.move"),
      tags: ["Operator"],
      summary: "Operator only: start moving an organization's data to another shard",
      description:
        "Takes the deployment's OPERATOR_TOKEN as bearer token, never an API key (404 where none is set). Answers 202 with the move job at once; " +
        "a Durable Object runs it (GET the Location for its progress). Writes of the organization answer 503 ORG_MOVING until it ends; " +
        "a failed verification abandons it and leaves the organization where it was.",
      security: [{ operatorToken: [] }],
      middleware: operatorOnly,
      request: {
        params: orgParam,
        body: { required: true, content: json(z.object({ shard: z.string().min(1).openapi({ description: "A DATA_SHARDS name" }) }).strict()) },
      },
      responses: {
        202: { description: "Started", headers: z.object({ Location: z.string() }), content: json(OrgMoveSchema) },
        ...commonErrors,
        ...notFoundError,
        ...conflictError,
      },
    }),
    async (c) => {
      const { orgId } = c.req.valid("param");
      const job = await startOrgMove(c.env, c.get("contexts"), orgId, c.req.valid("json").shard);
      c.header("Location", movePath(orgId));
      return c.json(presentOrgMove(job), 202);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      operationId: "getOrganizationMove",
      path: "/organizations/{orgId}/move",
      tags: ["Operator"],
      summary: "Operator only: the organization's latest move between shards and its progress",
      security: [{ operatorToken: [] }],
      middleware: operatorOnly,
      request: { params: orgParam },
      responses: { 200: { description: "The move", content: json(OrgMoveSchema) }, ...commonErrors, ...notFoundError },
    }),
    async (c) => c.json(presentOrgMove(await orgMoveStatus(c.env, c.req.valid("param").orgId)), 200),
  );
