// GET /api/v1/webhook-event-types: the events customers can subscribe webhook endpoints to.
import { createRoute } from "@hono/zod-openapi";
import type { HttpEnv } from "../../../platform/http/http-env";
import { createRouter } from "../../../platform/http/router";
import { commonErrors, json, security } from "../../../platform/http/schemas";
import { requirePermission } from "../../tenancy";
import { EventTypeList, eventTypeList } from "../schemas";

export const webhookEventTypeRoutes = createRouter<HttpEnv>().openapi(
  createRoute({ method: "get", path: "/", tags: ["Webhooks"], summary: "List the event types webhook endpoints can subscribe to, with their data", security, middleware: requirePermission("org:read"), responses: { 200: { description: "Event types", content: json(EventTypeList) }, ...commonErrors } }),
  (c) => c.json(eventTypeList(), 200),
);
