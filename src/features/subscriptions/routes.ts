// GET /fhir/r4/{orgId}/$subscription-ws: where a websocket-channel client opens its socket (the
// websocket-url of $get-ws-binding-token). Mounted ahead of the API-key authentication
// (src/main/app.ts), since browsers cannot set headers on a WebSocket: the socket is worth nothing
// until it sends `bind-with-token <token>`, and a token binds only in the organization that issued it.
import { createRoute, z } from "@hono/zod-openapi";
import { ApiError } from "../../platform/errors";
import { orgObject } from "../../platform/durable-objects/object-names";
import type { HttpEnv } from "../../platform/http/http-env";
import { createRouter } from "../../platform/http/router";
import { errorResponse } from "../../platform/http/schemas";
import { SOCKETS_NAME, SOCKETS_ORG_HEADER } from "./sockets";

const notFound = () => new ApiError(404, "ORGANIZATION_NOT_FOUND", "No such organization");

export const subscriptionSocketRoutes = createRouter<HttpEnv>().openapi(
  createRoute({
    method: "get",
    path: "/{orgId}/$subscription-ws",
    tags: ["FHIR"],
    summary: "Open a FHIR Subscription websocket (the websocket channel's websocket-url)",
    description:
      "Upgrade: websocket, no credential. The client sends `bind-with-token <token>` (a token from `Subscription/{id}/$get-ws-binding-token`, valid 5 minutes, " +
      "and only here, in its organization) and `unbind-with-token <token>`; the service answers each bound subscription's handshake Bundle (`bound <id>` for an R4 " +
      "subscription without payload), then pushes its notification Bundles as text frames (`ping <id>` for R4 empty notifications) and its heartbeats. " +
      "A message it cannot serve is answered with an OperationOutcome. The text `ping` is answered `pong`.",
    security: [],
    request: { params: z.object({ orgId: z.string() }), headers: z.object({ upgrade: z.string().optional().openapi({ example: "websocket" }) }) },
    responses: { 101: { description: "Switching protocols: the subscription socket" }, 404: errorResponse("No such organization"), 426: errorResponse("Not a WebSocket upgrade") },
  }),
  async (c) => {
    const { orgId } = c.req.valid("param");
    const ctx = await c.get("contexts").forPublicOrg(orgId, notFound);
    if (c.req.header("upgrade")?.toLowerCase() !== "websocket") throw new ApiError(426, "UPGRADE_REQUIRED", "Connect with a WebSocket upgrade (Upgrade: websocket)");
    const upgrade = new Request("https://subscription-sockets/connect", { headers: { upgrade: "websocket", [SOCKETS_ORG_HEADER]: ctx.orgId } });
    return orgObject(ctx.env.SUBSCRIPTION_SOCKETS, ctx.orgId, SOCKETS_NAME).fetch(upgrade);
  },
);
