// /api/pipelines: CRUD with kept versions, deploy/undeploy (spec 3.1) and the
// per-pipeline webhook trigger.
import { createRoute, z } from "@hono/zod-openapi";
import { createRouter } from "../../../platform/http/router";
import { commonErrors, conflictError, json, notFoundError, pageOf, PageQuery, security, tooLargeError } from "../../../platform/http/schemas";
import { requirePermission } from "../../tenancy";
import {
  ExecutionResponseSchema,
  IdParam,
  Pipeline,
  PipelineBody,
  PipelineSummary,
  PipelineVersion,
  VersionParam,
  WebhookQuery,
  presentPipeline,
  presentPipelineSummary,
  presentPipelineVersion,
} from "../schemas";
import {
  createPipeline,
  deletePipeline,
  deployPipeline,
  getPipeline,
  getPipelineVersion,
  listPipelineVersions,
  listPipelines,
  triggerWebhook,
  undeployPipeline,
  updatePipeline,
} from "../use-cases/pipelines";
import type { HttpEnv } from "../../../platform/http/http-env";
import { audited, byId, newId } from "../../audit";

const tags = ["Pipelines"];
const read = requirePermission("pipelines:read");
const manage = requirePermission("pipelines:manage");
const pipelineResponse = (description: string) => ({ description, content: json(Pipeline) });

export const pipelineRoutes = createRouter<HttpEnv>()
  .openapi(
    createRoute({ method: "get", path: "/", tags, summary: "List pipelines", security, middleware: read, request: { query: PageQuery }, responses: { 200: { description: "Page of pipelines", content: json(pageOf("pipelines", PipelineSummary)) }, ...commonErrors } }),
    async (c) => {
      const { limit, offset } = c.req.valid("query");
      const { rows, total } = await listPipelines(c.get("ctx"), limit, offset);
      return c.json({ pipelines: rows.map(presentPipelineSummary), total_count: total }, 200);
    },
  )
  .openapi(
    createRoute({ method: "post", path: "/", audit: audited("pipeline.create", newId), tags, summary: "Create a pipeline (status active, version 1)", security, middleware: manage, request: { body: { required: true, content: json(PipelineBody) } }, responses: { 201: pipelineResponse("Created"), ...commonErrors } }),
    async (c) => c.json(presentPipeline(await createPipeline(c.get("ctx"), c.req.valid("json"))), 201),
  )
  .openapi(
    createRoute({ method: "get", path: "/{id}", tags, summary: "Get a pipeline with its definition", security, middleware: read, request: { params: IdParam }, responses: { 200: pipelineResponse("Pipeline"), ...commonErrors, ...notFoundError } }),
    async (c) => c.json(presentPipeline(await getPipeline(c.get("ctx"), c.req.valid("param").id)), 200),
  )
  .openapi(
    createRoute({ method: "put", path: "/{id}", audit: audited("pipeline.update", byId), tags, summary: "Update a pipeline; a changed definition becomes a new version", security, middleware: manage, request: { params: IdParam, body: { required: true, content: json(PipelineBody) } }, responses: { 200: pipelineResponse("Updated"), ...commonErrors, ...notFoundError, ...conflictError } }),
    async (c) => c.json(presentPipeline(await updatePipeline(c.get("ctx"), c.req.valid("param").id, c.req.valid("json"))), 200),
  )
  .openapi(
    createRoute({ method: "delete", path: "/{id}", audit: audited("pipeline.delete", byId), tags, summary: "Delete an undeployed pipeline (409 PIPELINE_DEPLOYED when deployed)", security, middleware: manage, request: { params: IdParam }, responses: { 204: { description: "Deleted" }, ...commonErrors, ...notFoundError, ...conflictError } }),
    async (c) => {
      await deletePipeline(c.get("ctx"), c.req.valid("param").id);
      return c.body(null, 204);
    },
  )
  .openapi(
    createRoute({ method: "post", path: "/{id}/deploy", audit: audited("pipeline.deploy", byId), tags, summary: "Deploy: the current version becomes executable and its triggers live", security, middleware: manage, request: { params: IdParam }, responses: { 200: pipelineResponse("Deployed"), ...commonErrors, ...notFoundError } }),
    async (c) => c.json(presentPipeline(await deployPipeline(c.get("ctx"), c.req.valid("param").id)), 200),
  )
  .openapi(
    createRoute({ method: "post", path: "/{id}/undeploy", audit: audited("pipeline.undeploy", byId), tags, summary: "Undeploy: status active, schedules and event triggers stop", security, middleware: manage, request: { params: IdParam }, responses: { 200: pipelineResponse("Undeployed"), ...commonErrors, ...notFoundError } }),
    async (c) => c.json(presentPipeline(await undeployPipeline(c.get("ctx"), c.req.valid("param").id)), 200),
  )
  .openapi(
    createRoute({ method: "get", path: "/{id}/versions", tags, summary: "List the kept versions, newest first", security, middleware: read, request: { params: IdParam, query: PageQuery }, responses: { 200: { description: "Versions", content: json(pageOf("versions", PipelineVersion)) }, ...commonErrors, ...notFoundError } }),
    async (c) => {
      const { limit, offset } = c.req.valid("query");
      const { rows, total } = await listPipelineVersions(c.get("ctx"), c.req.valid("param").id, limit, offset);
      return c.json({ versions: rows.map(presentPipelineVersion), total_count: total }, 200);
    },
  )
  .openapi(
    createRoute({ method: "get", path: "/{id}/versions/{version}", tags, summary: "Get one kept version", security, middleware: read, request: { params: VersionParam }, responses: { 200: { description: "Version", content: json(PipelineVersion) }, ...commonErrors, ...notFoundError } }),
    async (c) => {
      const { id, version } = c.req.valid("param");
      return c.json(presentPipelineVersion(await getPipelineVersion(c.get("ctx"), id, version)), 200);
    },
  )
  .openapi(
    createRoute({
      method: "post",
      operationId: "triggerPipelineWebhook", path: "/{id}/webhook",
      audit: audited("execution.start", { response: "execution_id" }),
      tags,
      summary: "Webhook trigger: starts the deployed pipeline's webhook trigger node with the JSON body",
      description: "Authenticated with an API key holding pipelines:execute. An Idempotency-Key header makes redelivery start no second execution. Runs async unless ?wait=true.",
      security,
      middleware: requirePermission("pipelines:execute"),
      request: {
        params: IdParam,
        query: WebhookQuery,
        body: { required: false, content: json(z.unknown()) },
      },
      responses: { 202: { description: "Started", content: json(ExecutionResponseSchema) }, 200: { description: "Finished (wait=true)", content: json(ExecutionResponseSchema) }, ...commonErrors, ...notFoundError, ...conflictError, ...tooLargeError },
    }),
    async (c) => {
      const { node_id, wait } = c.req.valid("query");
      const result = await triggerWebhook(c.get("ctx"), c.req.valid("param").id, {
        nodeId: node_id,
        wait: wait === "true",
        body: await c.req.text(),
        contentType: c.req.header("content-type"),
        idempotencyKey: c.req.header("idempotency-key"),
        concurrencyLimit: c.get("limits").concurrentExecutions,
      });
      return c.json(result, wait === "true" ? 200 : 202);
    },
  );
