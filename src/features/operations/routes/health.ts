// Unauthenticated liveness (/health: D1 answers) and readiness (/health/ready: every D1
// database, R2 and a Durable Object round trip, timed; 503 when one fails).
import { createRoute } from "@hono/zod-openapi";
import { createRouter } from "../../../platform/http/router";
import { allDatabases, controlDatabase, shardDatabase, shardNames } from "../../../platform/shards";
import { orgGate } from "../../tenancy";
import { HealthSchema, ReadinessSchema } from "../schemas";
import { checkHealth, checkReadiness } from "../use-cases/health";
import type { HttpEnv } from "../../../platform/http/http-env";

/** The OrgGate instance readiness probes with a read (slots in use): it changes nothing, whoever the name may be. */
const PROBE_ORG = "__readiness__";

export const healthRoutes = createRouter<HttpEnv>()
  .openapi(
    createRoute({
      method: "get",
      path: "/health",
      tags: ["Service"],
      summary: "Service health (no authentication)",
      security: [],
      responses: { 200: { description: "Healthy", content: { "application/json": { schema: HealthSchema } } } },
    }),
    async (c) => c.json(await checkHealth(allDatabases(c.env)), 200),
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/health/ready",
      operationId: "getReadiness",
      tags: ["Service"],
      summary: "Readiness: every D1 database, R2 and a Durable Object answer, with timings (no authentication)",
      security: [],
      responses: {
        200: { description: "Ready", content: { "application/json": { schema: ReadinessSchema } } },
        503: { description: "Not ready: the failing checks say which", content: { "application/json": { schema: ReadinessSchema } } },
      },
    }),
    async (c) => {
      const result = await checkReadiness({
        databases: [{ name: "control", db: controlDatabase(c.env) }, ...shardNames(c.env).map((name) => ({ name, db: shardDatabase(c.env, name) }))],
        blobs: c.env.BLOBS,
        durableObject: () => orgGate(c.env, PROBE_ORG).slotsInUse("readiness"),
      });
      return c.json(result, result.status === "ready" ? 200 : 503);
    },
  );
