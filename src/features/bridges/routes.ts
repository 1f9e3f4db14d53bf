// /api/v1/bridges: the org's on-premises bridges (admins register, rotate and delete them; every
// role of the org may read them), and /api/v1/bridges/connect, where a bridge opens its relay
// WebSocket with its own credential. The connect route is mounted ahead of the API-key
// authentication (src/main/app.ts): it takes only a bridge credential, and the API's routes
// take only API keys, so neither credential works in the other's place.
import { createRoute, z } from "@hono/zod-openapi";
import { createRouter } from "../../platform/http/router";
import { commonErrors, errorResponse, json, notFoundError, pageOf, PageQuery, security } from "../../platform/http/schemas";
import type { HttpEnv } from "../../platform/http/http-env";
import { ApiError } from "../../platform/errors";
import { requirePermission } from "../tenancy";
import { audited, byId, newId } from "../audit";
import { RELAY_BRIDGE_HEADER, RELAY_ORG_HEADER } from "./bridge-relay";
import { Bridge, BridgeBody, BridgeIdParam, BridgeWithCredential, presentBridge } from "./schemas";
import { authenticateBridge, connectBridge, deleteBridge, getBridge, listBridges, registerBridge, rotateBridgeCredential } from "./use-cases";

const tags = ["Bridges"];
const manage = requirePermission("connectors:manage");
const read = requirePermission("org:read");

export const bridgeRoutes = createRouter<HttpEnv>()
  .openapi(
    createRoute({ method: "get", path: "/", tags, summary: "List the organization's bridges with their connection state", security, middleware: read, request: { query: PageQuery }, responses: { 200: { description: "Page", content: json(pageOf("bridges", Bridge)) }, ...commonErrors } }),
    async (c) => {
      const { limit, offset } = c.req.valid("query");
      const { bridges, total } = await listBridges(c.get("ctx"), limit, offset);
      return c.json({ bridges: bridges.map((b) => presentBridge(b.row, b.status)), total_count: total }, 200);
    },
  )
  .openapi(
    createRoute({ method: "post", path: "/", audit: audited("bridge.create", newId), tags, summary: "Register a bridge (admin): its credential is in this answer only", security, middleware: manage, request: { body: { required: true, content: json(BridgeBody) } }, responses: { 201: { description: "Registered", content: json(BridgeWithCredential) }, ...commonErrors } }),
    async (c) => {
      const { row, credential, status } = await registerBridge(c.get("ctx"), c.get("principal"), c.req.valid("json"));
      return c.json({ ...presentBridge(row, status), credential }, 201);
    },
  )
  .openapi(
    createRoute({ method: "get", path: "/{id}", tags, summary: "Get a bridge with its connection state", security, middleware: read, request: { params: BridgeIdParam }, responses: { 200: { description: "Bridge", content: json(Bridge) }, ...commonErrors, ...notFoundError } }),
    async (c) => {
      const { row, status } = await getBridge(c.get("ctx"), c.req.valid("param").id);
      return c.json(presentBridge(row, status), 200);
    },
  )
  .openapi(
    createRoute({ method: "post", path: "/{id}/rotate-credential", audit: audited("bridge.rotate_credential", byId), tags, summary: "Replace a bridge's credential (admin): the old one stops working and its connection is closed", security, middleware: manage, request: { params: BridgeIdParam }, responses: { 200: { description: "The new credential, shown only here", content: json(BridgeWithCredential) }, ...commonErrors, ...notFoundError } }),
    async (c) => {
      const { row, credential, status } = await rotateBridgeCredential(c.get("ctx"), c.req.valid("param").id);
      return c.json({ ...presentBridge(row, status), credential }, 200);
    },
  )
  .openapi(
    createRoute({ method: "delete", path: "/{id}", audit: audited("bridge.delete", byId), tags, summary: "Delete a bridge (admin): its connection is closed and its credential stops working", security, middleware: manage, request: { params: BridgeIdParam }, responses: { 204: { description: "Deleted" }, ...commonErrors, ...notFoundError } }),
    async (c) => {
      await deleteBridge(c.get("ctx"), c.req.valid("param").id);
      return c.body(null, 204);
    },
  );

/** The bridge's relay connection: mounted before the API-key authentication. */
export const bridgeConnectRoutes = createRouter<HttpEnv>().openapi(
  createRoute({
    method: "get",
    path: "/connect",
    tags,
    summary: "Open a bridge's relay WebSocket (the bridge itself, with its credential)",
    description:
      "Upgrade: websocket, with `Authorization: Bearer <bridge credential>` (not an API key; no X-Organization-ID). " +
      "The service sends `transmit` messages and `ack`s; the bridge sends `hello` and `outcome` messages and the text `ping` (answered `pong`). " +
      "A second connection of the same bridge replaces the first (close code 4000).",
    security: [{ bearerAuth: [] }],
    request: { headers: z.object({ upgrade: z.string().optional().openapi({ example: "websocket" }) }) },
    responses: { 101: { description: "Switching protocols: the relay socket" }, 401: errorResponse("Not a valid bridge credential"), 426: errorResponse("Not a WebSocket upgrade") },
  }),
  async (c) => {
    const { ctx, bridge } = await authenticateBridge(c.get("contexts"), c.req.header("authorization"));
    if (c.req.header("upgrade")?.toLowerCase() !== "websocket") throw new ApiError(426, "UPGRADE_REQUIRED", "Connect with a WebSocket upgrade (Upgrade: websocket)");
    return connectBridge(ctx, bridge, { org: RELAY_ORG_HEADER, bridge: RELAY_BRIDGE_HEADER });
  },
);
