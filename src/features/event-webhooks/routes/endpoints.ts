// /api/v1/webhook-endpoints: the organization's customer webhook endpoints (admins): CRUD, the
// signing secret's rotation, the delivery log and replay. Inbound vendor webhooks are elsewhere
// (/api/v1/webhooks/devices/..., /api/pipelines/{id}/webhook).
import { createRoute } from "@hono/zod-openapi";
import type { HttpEnv } from "../../../platform/http/http-env";
import { createRouter } from "../../../platform/http/router";
import { commonErrors, conflictError, json, notFoundError, pageOf, security } from "../../../platform/http/schemas";
import { audited, byId, newId } from "../../audit";
import { requirePermission } from "../../tenancy";
import type { DeliveryPort } from "../delivery";
import {
  DeliveryDetail,
  DeliveryListQuery,
  DeliveryPage,
  DeliveryParams,
  Endpoint,
  EndpointBody,
  EndpointIdParam,
  EndpointListQuery,
  EndpointPatch,
  EndpointWithSecret,
  ReplayBody,
  ReplayResult,
  RotateBody,
  presentDelivery,
  presentDeliveryDetail,
  presentEndpoint,
} from "../schemas";
import { getDelivery, listDeliveries, replay } from "../use-cases/deliveries";
import { createEndpoint, deleteEndpoint, getEndpoint, listEndpoints, rotateSecret, updateEndpoint } from "../use-cases/endpoints";
import { unsealSecrets } from "../secrets";

const tags = ["Webhooks"];
const manage = requirePermission("webhooks:manage");

export function webhookEndpointRoutes(port: DeliveryPort) {
  return createRouter<HttpEnv>()
    .openapi(
      createRoute({ method: "get", path: "/", tags, summary: "List webhook endpoints", security, middleware: manage, request: { query: EndpointListQuery }, responses: { 200: { description: "Page", content: json(pageOf("webhook_endpoints", Endpoint)) }, ...commonErrors } }),
      async (c) => {
        const ctx = c.get("ctx");
        const { limit, offset } = c.req.valid("query");
        const { rows, total } = await listEndpoints(ctx, limit, offset);
        const endpoints = await Promise.all(rows.map(async (r) => presentEndpoint(r, await unsealSecrets(ctx.env, ctx.orgId, r.id, r.secretsEnc))));
        return c.json({ webhook_endpoints: endpoints, total_count: total }, 200);
      },
    )
    .openapi(
      createRoute({ method: "post", path: "/", audit: audited("webhook_endpoint.create", newId), tags, summary: "Register a webhook endpoint (its signing secret is answered only here)", security, middleware: manage, request: { body: { required: true, content: json(EndpointBody) } }, responses: { 201: { description: "Created", content: json(EndpointWithSecret) }, ...commonErrors } }),
      async (c) => {
        const { row, secret } = await createEndpoint(c.get("ctx"), port, c.req.valid("json"));
        const now = row.createdAt;
        return c.json({ ...presentEndpoint(row, [{ secret, created_at: now, expires_at: null }]), secret }, 201);
      },
    )
    .openapi(
      createRoute({ method: "get", path: "/{id}", tags, summary: "Get a webhook endpoint", security, middleware: manage, request: { params: EndpointIdParam }, responses: { 200: { description: "Endpoint", content: json(Endpoint) }, ...commonErrors, ...notFoundError } }),
      async (c) => {
        const { row, secrets } = await getEndpoint(c.get("ctx"), c.req.valid("param").id);
        return c.json(presentEndpoint(row, secrets), 200);
      },
    )
    .openapi(
      createRoute({ method: "patch", path: "/{id}", audit: audited("webhook_endpoint.update", byId), tags, summary: "Change a webhook endpoint (enabled: true re-enables a disabled one)", security, middleware: manage, request: { params: EndpointIdParam, body: { required: true, content: json(EndpointPatch) } }, responses: { 200: { description: "Updated", content: json(Endpoint) }, ...commonErrors, ...notFoundError } }),
      async (c) => {
        const ctx = c.get("ctx");
        const row = await updateEndpoint(ctx, port, c.req.valid("param").id, c.req.valid("json"));
        return c.json(presentEndpoint(row, await unsealSecrets(ctx.env, ctx.orgId, row.id, row.secretsEnc)), 200);
      },
    )
    .openapi(
      createRoute({ method: "delete", path: "/{id}", audit: audited("webhook_endpoint.delete", byId), tags, summary: "Delete a webhook endpoint and its delivery queue", security, middleware: manage, request: { params: EndpointIdParam }, responses: { 204: { description: "Deleted" }, ...commonErrors, ...notFoundError } }),
      async (c) => {
        await deleteEndpoint(c.get("ctx"), port, c.req.valid("param").id);
        return c.body(null, 204);
      },
    )
    .openapi(
      createRoute({
        method: "post",
        path: "/{id}/rotate-secret",
        audit: audited("webhook_endpoint.rotate_secret", byId),
        tags,
        summary: "Make a new signing secret (answered only here); the one before keeps signing for the overlap",
        security,
        middleware: manage,
        request: { params: EndpointIdParam, body: { required: false, content: json(RotateBody) } },
        responses: { 200: { description: "Rotated", content: json(EndpointWithSecret) }, ...commonErrors, ...notFoundError },
      }),
      async (c) => {
        const body = (c.req.valid("json") as { overlap_hours?: number } | undefined) ?? {};
        const { row, secret, secrets } = await rotateSecret(c.get("ctx"), port, c.req.valid("param").id, body.overlap_hours);
        return c.json({ ...presentEndpoint(row, secrets), secret }, 200);
      },
    )
    .openapi(
      createRoute({ method: "get", path: "/{id}/deliveries", tags, summary: "An endpoint's deliveries, newest first (state, attempts, last answer)", security, middleware: manage, request: { params: EndpointIdParam, query: DeliveryListQuery }, responses: { 200: { description: "Page", content: json(DeliveryPage) }, ...commonErrors, ...notFoundError } }),
      async (c) => {
        const page = await listDeliveries(c.get("ctx"), port, c.req.valid("param").id, c.req.valid("query"));
        return c.json({ deliveries: page.messages.map(presentDelivery), next_cursor: page.next_cursor }, 200);
      },
    )
    .openapi(
      createRoute({ method: "get", path: "/{id}/deliveries/{delivery_id}", tags, summary: "One delivery with its payload and every attempt (status, latency, response excerpt)", security, middleware: manage, request: { params: DeliveryParams }, responses: { 200: { description: "Delivery", content: json(DeliveryDetail) }, ...commonErrors, ...notFoundError } }),
      async (c) => {
        const { id, delivery_id } = c.req.valid("param");
        const { message, attempts } = await getDelivery(c.get("ctx"), port, id, delivery_id);
        return c.json(presentDeliveryDetail(message, attempts), 200);
      },
    )
    .openapi(
      createRoute({ method: "post", path: "/{id}/replay", audit: audited("webhook_endpoint.replay", byId), tags, summary: "Deliver an event, or a time range's events, again (same webhook-id)", security, middleware: manage, request: { params: EndpointIdParam, body: { required: true, content: json(ReplayBody) } }, responses: { 202: { description: "Queued again", content: json(ReplayResult) }, ...commonErrors, ...notFoundError, ...conflictError } }),
      async (c) => c.json(await replay(c.get("ctx"), port, c.req.valid("param").id, c.req.valid("json")), 202),
    );
}

