// /api/copilot: every copilot endpoint, given the ports the composition root fills.
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { HttpEnv } from "../../../platform/http/http-env";
import { createRouter } from "../../../platform/http/router";
import type { CopilotPorts } from "../ports";
import { chatRoutes } from "./chat";
import { deterministicRoutes } from "./deterministic";
import { generateRoutes } from "./generate";
import { suggestionRoutes } from "./suggestions";

export function copilotRoutes(ports: CopilotPorts): OpenAPIHono<HttpEnv> {
  // Typed as plain routers: the merged route types would be too large for the compiler.
  const router = createRouter<HttpEnv>();
  const parts = [deterministicRoutes, generateRoutes(ports.hl7), suggestionRoutes, chatRoutes] as unknown as OpenAPIHono<HttpEnv>[];
  for (const part of parts) router.route("/", part);
  return router;
}
