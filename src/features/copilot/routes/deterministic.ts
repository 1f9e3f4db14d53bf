// The copilot's deterministic endpoints (no model): validate, analyze, insights, infer/schema,
// configure/node, auto-configure/pipeline, generate/pipeline-docs, health.
import { createRoute, type z } from "@hono/zod-openapi";
import { createRouter } from "../../../platform/http/router";
import { json, security } from "../../../platform/http/schemas";
import { requirePermission } from "../../tenancy";
import {
  AgentIdParam,
  AnalysisSchema,
  AnalyzeBody,
  AutoConfiguredSchema,
  ConfigureNodeBody,
  DocsBody,
  DocsSchema,
  HealthSchema,
  InferredSchema,
  InferSchemaBody,
  InsightsSchema,
  NodeConfigurationSchema,
  PipelineRefBody,
  ValidateBody,
  ValidationSchema,
} from "../schemas";
import { analyze } from "../use-cases/analyze";
import { autoConfigurePipeline, configureNodeFor, documentPipeline, inferSchemaOf, validate } from "../use-cases/deterministic";
import { copilotHealth } from "../use-cases/health";
import { agentInsights } from "../use-cases/insights";
import { answersOnly, deterministicErrors, jsonPost, tags } from "./responses";
import type { HttpEnv } from "../../../platform/http/http-env";

const read = requirePermission("pipelines:read");
const post = <B extends z.ZodType, R extends z.ZodType>(path: string, summary: string, body: B, response: R, description: string) =>
  jsonPost({ path, summary, body, response, description, middleware: read, errors: deterministicErrors, audit: answersOnly });

export const deterministicRoutes = createRouter<HttpEnv>()
  .openapi(
    post("/validate/pipeline", "Validate a definition with the service's validator, plus the copilot's warnings", ValidateBody, ValidationSchema, "valid, errors and warnings by node"),
    (c) => c.json(validate(c.get("ctx"), c.req.valid("json").definition), 200),
  )
  .openapi(
    post("/analyze", "Analyze a pipeline (static findings and execution history) or an agent (agents:read)", AnalyzeBody, AnalysisSchema, "Findings and recommendations"),
    async (c) => c.json(await analyze(c.get("ctx"), c.get("principal"), c.req.valid("json")), 200),
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/insights/{agentId}",
      operationId: "copilotAgentInsights",
      tags,
      summary: "An agent's usage (conversations, tool calls, errors, estimated tokens) and recommendations",
      security,
      middleware: requirePermission("agents:read"),
      request: { params: AgentIdParam },
      responses: { 200: { description: "Usage and recommendations", content: json(InsightsSchema) }, ...deterministicErrors },
    }),
    async (c) => c.json(await agentInsights(c.get("ctx"), c.req.valid("param").agentId), 200),
  )
  .openapi(post("/infer/schema", "Infer a JSON Schema from sample values", InferSchemaBody, InferredSchema, "The inferred schema"), (c) => {
    const body = c.req.valid("json");
    return c.json(inferSchemaOf(body.samples, { maxEnum: body.max_enum, minEnumSamples: body.min_enum_samples }), 200);
  })
  .openapi(
    post("/configure/node", "Configuration for a node type from its config_schema and the org's connectors", ConfigureNodeBody, NodeConfigurationSchema, "The configuration and where each value came from"),
    async (c) => c.json(await configureNodeFor(c.get("ctx"), c.req.valid("json")), 200),
  )
  .openapi(
    post("/auto-configure/pipeline", "Configure a pipeline's unconfigured nodes", PipelineRefBody, AutoConfiguredSchema, "The configured definition, the changes and what is left"),
    async (c) => c.json(await autoConfigurePipeline(c.get("ctx"), c.req.valid("json")), 200),
  )
  .openapi(
    post("/generate/pipeline-docs", "Markdown documentation of a pipeline from its definition", DocsBody, DocsSchema, "Markdown: purpose, trigger, nodes, data flow, error handling"),
    async (c) => c.json(await documentPipeline(c.get("ctx"), c.req.valid("json")), 200),
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/health",
      operationId: "copilotHealth",
      tags,
      summary: "Copilot health: deterministic endpoints, and whether a model is available",
      security,
      middleware: read,
      responses: { 200: { description: "Health", content: json(HealthSchema) }, ...deterministicErrors },
    }),
    async (c) => c.json(await copilotHealth(c.get("ctx"), c.get("principal")), 200),
  );
