// /api/pipelines: CRUD with kept versions, deploy/undeploy (spec 3.1) and the
// per-pipeline webhook trigger. Validation and storage live in src/pipelines.
import { createRoute, z } from "@hono/zod-openapi";
import { database } from "../../../platform/db/client";
import type { PipelineRow, PipelineVersionRow } from "../tables";
import { badRequest } from "../../../platform/errors";
import { createRouter } from "../../../platform/http/router";
import { commonErrors, conflictError, json, jsonAtMost, notFoundError, pageOf, PageQuery, security, tooLargeError } from "../../../platform/http/schemas";
import type { Env } from "../../../platform/env";
import { requirePermission } from "../../tenancy/middleware/auth";
import { outboundPolicyOf } from "../../../platform/outbound/policy";
import { DefinitionSchema, MAX_DEFINITION_BYTES } from "../definition";
import { execute } from "../../../service-wiring";
import { PipelineStore } from "../pipeline-store";
import { registry } from "../registry";
import { checkDefinition } from "../validate-definition";
import { ExecutionResponseSchema } from "./execution-schemas";

const PipelineSummary = z
  .object({
    id: z.string().uuid(),
    name: z.string(),
    description: z.string(),
    status: z.enum(["active", "deployed"]),
    version: z.number().int(),
    deployed_version: z.number().int().nullable(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi("PipelineSummary");
const Pipeline = PipelineSummary.extend({ definition: DefinitionSchema }).openapi("Pipeline");
const PipelineVersion = z
  .object({ version: z.number().int(), name: z.string(), description: z.string(), created_at: z.string(), definition: DefinitionSchema })
  .openapi("PipelineVersion");

const PipelineBody = z
  .object({
    name: z.string().trim().min(1).max(200),
    description: z.string().max(5000).default(""),
    definition: z
      .unknown()
      .superRefine(jsonAtMost(MAX_DEFINITION_BYTES))
      .openapi({ description: `nodes and connections; validated against the node catalog; at most ${MAX_DEFINITION_BYTES} bytes of JSON` }),
  })
  .strict()
  .openapi("PipelineInput");

const IdParam = z.object({ id: z.string().openapi({ param: { name: "id", in: "path" } }) });
const VersionParam = IdParam.extend({ version: z.coerce.number().int().min(1).openapi({ param: { name: "version", in: "path" } }) });

const summary = (r: PipelineRow) => ({
  id: r.id,
  name: r.name,
  description: r.description,
  status: r.status,
  version: r.version,
  deployed_version: r.deployedVersion,
  created_at: r.createdAt,
  updated_at: r.updatedAt,
});
const full = (r: PipelineRow) => ({ ...summary(r), definition: r.definition as z.infer<typeof DefinitionSchema> });
const versionView = (v: PipelineVersionRow) => ({
  version: v.version,
  name: v.name,
  description: v.description,
  created_at: v.createdAt,
  definition: v.definition as z.infer<typeof DefinitionSchema>,
});

const tags = ["Pipelines"];
const read = requirePermission("pipelines:read");
const manage = requirePermission("pipelines:manage");
const store = (db: D1Database) => new PipelineStore(database(db));
const checked = (env: Env, body: z.infer<typeof PipelineBody>) => ({
  name: body.name,
  description: body.description,
  definition: checkDefinition(body.definition, registry, outboundPolicyOf(env)).definition,
});
const pipelineResponse = (description: string) => ({ description, content: json(Pipeline) });

export const pipelineRoutes = createRouter()
  .openapi(
    createRoute({ method: "get", path: "/", tags, summary: "List pipelines", security, middleware: read, request: { query: PageQuery }, responses: { 200: { description: "Page of pipelines", content: json(pageOf("pipelines", PipelineSummary)) }, ...commonErrors } }),
    async (c) => {
      const { limit, offset } = c.req.valid("query");
      const { rows, total } = await store(c.env.DB).list(c.get("principal").orgId, limit, offset);
      return c.json({ pipelines: rows.map(summary), total_count: total }, 200);
    },
  )
  .openapi(
    createRoute({ method: "post", path: "/", tags, summary: "Create a pipeline (status active, version 1)", security, middleware: manage, request: { body: { required: true, content: json(PipelineBody) } }, responses: { 201: pipelineResponse("Created"), ...commonErrors } }),
    async (c) => c.json(full(await store(c.env.DB).create(c.get("principal").orgId, checked(c.env, c.req.valid("json")))), 201),
  )
  .openapi(
    createRoute({ method: "get", path: "/{id}", tags, summary: "Get a pipeline with its definition", security, middleware: read, request: { params: IdParam }, responses: { 200: pipelineResponse("Pipeline"), ...commonErrors, ...notFoundError } }),
    async (c) => c.json(full(await store(c.env.DB).get(c.get("principal").orgId, c.req.valid("param").id)), 200),
  )
  .openapi(
    createRoute({ method: "put", path: "/{id}", tags, summary: "Update a pipeline; a changed definition becomes a new version", security, middleware: manage, request: { params: IdParam, body: { required: true, content: json(PipelineBody) } }, responses: { 200: pipelineResponse("Updated"), ...commonErrors, ...notFoundError, ...conflictError } }),
    async (c) => c.json(full(await store(c.env.DB).update(c.get("principal").orgId, c.req.valid("param").id, checked(c.env, c.req.valid("json")))), 200),
  )
  .openapi(
    createRoute({ method: "delete", path: "/{id}", tags, summary: "Delete an undeployed pipeline (409 PIPELINE_DEPLOYED when deployed)", security, middleware: manage, request: { params: IdParam }, responses: { 204: { description: "Deleted" }, ...commonErrors, ...notFoundError, ...conflictError } }),
    async (c) => {
      await store(c.env.DB).delete(c.get("principal").orgId, c.req.valid("param").id);
      return c.body(null, 204);
    },
  )
  .openapi(
    createRoute({ method: "post", path: "/{id}/deploy", tags, summary: "Deploy: the current version becomes executable and its triggers live", security, middleware: manage, request: { params: IdParam }, responses: { 200: pipelineResponse("Deployed"), ...commonErrors, ...notFoundError } }),
    async (c) => c.json(full(await store(c.env.DB).deploy(c.get("principal").orgId, c.req.valid("param").id)), 200),
  )
  .openapi(
    createRoute({ method: "post", path: "/{id}/undeploy", tags, summary: "Undeploy: status active, schedules and event triggers stop", security, middleware: manage, request: { params: IdParam }, responses: { 200: pipelineResponse("Undeployed"), ...commonErrors, ...notFoundError } }),
    async (c) => c.json(full(await store(c.env.DB).undeploy(c.get("principal").orgId, c.req.valid("param").id)), 200),
  )
  .openapi(
    createRoute({ method: "get", path: "/{id}/versions", tags, summary: "List the kept versions, newest first", security, middleware: read, request: { params: IdParam, query: PageQuery }, responses: { 200: { description: "Versions", content: json(pageOf("versions", PipelineVersion)) }, ...commonErrors, ...notFoundError } }),
    async (c) => {
      const { limit, offset } = c.req.valid("query");
      const { rows, total } = await store(c.env.DB).listVersions(c.get("principal").orgId, c.req.valid("param").id, limit, offset);
      return c.json({ versions: rows.map(versionView), total_count: total }, 200);
    },
  )
  .openapi(
    createRoute({ method: "get", path: "/{id}/versions/{version}", tags, summary: "Get one kept version", security, middleware: read, request: { params: VersionParam }, responses: { 200: { description: "Version", content: json(PipelineVersion) }, ...commonErrors, ...notFoundError } }),
    async (c) => {
      const { id, version } = c.req.valid("param");
      return c.json(versionView(await store(c.env.DB).getVersion(c.get("principal").orgId, id, version)), 200);
    },
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/{id}/webhook",
      tags,
      summary: "Webhook trigger: starts the deployed pipeline's webhook trigger node with the JSON body",
      description: "Authenticated with an API key holding pipelines:execute. An Idempotency-Key header makes redelivery start no second execution. Runs async unless ?wait=true.",
      security,
      middleware: requirePermission("pipelines:execute"),
      request: {
        params: IdParam,
        query: z.object({ node_id: z.string().optional(), wait: z.enum(["true", "false"]).default("false") }),
        body: { required: false, content: json(z.unknown()) },
      },
      responses: { 202: { description: "Started", content: json(ExecutionResponseSchema) }, 200: { description: "Finished (wait=true)", content: json(ExecutionResponseSchema) }, ...commonErrors, ...notFoundError, ...conflictError, ...tooLargeError },
    }),
    async (c) => {
      const orgId = c.get("principal").orgId;
      const { id } = c.req.valid("param");
      const { node_id, wait } = c.req.valid("query");
      const row = await store(c.env.DB).get(orgId, id);
      const definition = row.deployedVersion === row.version ? row.definition : (await store(c.env.DB).getVersion(orgId, id, row.deployedVersion ?? row.version)).definition;
      const hooks = (definition as z.infer<typeof DefinitionSchema>).nodes.filter((n) => n.type === "control.webhook_trigger");
      const hook = node_id ? hooks.find((n) => n.id === node_id) : hooks[0];
      if (!hook) throw badRequest(`The deployed version has no webhook trigger${node_id ? ` ${node_id}` : ""}`);
      const text = await c.req.text();
      let body: unknown = {};
      try {
        body = text ? JSON.parse(text) : {};
      } catch {
        throw badRequest("The webhook body is not valid JSON");
      }
      const result = await execute(c.env, orgId, {
        pipelineId: id,
        inputs: { body, headers: { "content-type": c.req.header("content-type") ?? "" }, received_at: new Date().toISOString() },
        async: wait !== "true",
        testMode: false,
        trigger: { kind: "webhook", nodeId: hook.id },
        concurrencyLimit: c.get("limits").concurrentExecutions,
        idempotencyKey: c.req.header("idempotency-key") ?? undefined,
      });
      return c.json(result, wait === "true" ? 200 : 202);
    },
  );
