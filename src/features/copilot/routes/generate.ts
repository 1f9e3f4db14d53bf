// The copilot's model-backed endpoints: generate/modify/refine pipeline, generate agent,
// FHIR queries, HL7 mapping and code. 503 MODEL_UNAVAILABLE without a model.
import type { z } from "@hono/zod-openapi";
import { createRouter } from "../../../platform/http/router";
import { requirePermission } from "../../tenancy";
import type { Hl7FieldPaths } from "../ports";
import {
  CodeBody,
  CodeResponse,
  FhirQueriesBody,
  FhirQueriesResponse,
  GenerateAgentBody,
  GeneratedAgentResponse,
  GeneratedPipelineSchema,
  GeneratePipelineBody,
  Hl7MappingBody,
  Hl7MappingResponse,
  ModifiedPipelineSchema,
  ModifyPipelineBody,
  RefinePipelineBody,
} from "../schemas";
import {
  generateAgentFor,
  generateCodeFor,
  generateFhirQueriesFor,
  generateHl7MappingFor,
  generatePipelineFor,
  modifyPipelineFor,
  refinePipelineFor,
} from "../use-cases/generate";
import { answersOnly, jsonPost, modelErrors } from "./responses";
import type { HttpEnv } from "../../../platform/http/http-env";

const manage = requirePermission("pipelines:manage");
const post = <B extends z.ZodType, R extends z.ZodType>(path: string, summary: string, body: B, response: R, description: string, middleware = manage) =>
  jsonPost({ path, summary, body, response, description, middleware, errors: modelErrors, audit: answersOnly });

export const generateRoutes = (hl7: Hl7FieldPaths) =>
  createRouter<HttpEnv>()
    .openapi(
      post("/generate/pipeline", "Generate a pipeline from a description (validated, repaired)", GeneratePipelineBody, GeneratedPipelineSchema, "A definition the service accepts"),
      async (c) => c.json(await generatePipelineFor(c.get("ctx"), c.get("principal"), c.req.valid("json")), 200),
    )
    .openapi(
      post("/modify/pipeline", "Modify a pipeline (stored or given) from a natural-language instruction", ModifyPipelineBody, ModifiedPipelineSchema, "The modified definition, validated"),
      async (c) => c.json(await modifyPipelineFor(c.get("ctx"), c.get("principal"), c.req.valid("json")), 200),
    )
    .openapi(
      post("/refine/pipeline", "Optimize a pipeline against the copilot's findings and the caller's goals", RefinePipelineBody, ModifiedPipelineSchema, "The refined definition, validated"),
      async (c) => c.json(await refinePipelineFor(c.get("ctx"), c.get("principal"), c.req.valid("json")), 200),
    )
    .openapi(
      post("/generate/agent", "Generate an agent configuration (tools and model checked against the org)", GenerateAgentBody, GeneratedAgentResponse, "A body POST /api/agents accepts", requirePermission("agents:manage")),
      async (c) => c.json(await generateAgentFor(c.get("ctx"), c.get("principal"), c.req.valid("json")), 200),
    )
    .openapi(
      post("/generate/fhir-queries", "FHIR search requests for a description, each checked as the FHIR API takes it (refused ones repaired or dropped with a warning)", FhirQueriesBody, FhirQueriesResponse, "Search requests"),
      async (c) => c.json(await generateFhirQueriesFor(c.get("ctx"), c.get("principal"), c.req.valid("json")), 200),
    )
    .openapi(
      post("/generate/hl7-mapping", "HL7 v2 to FHIR field mapping rules, checked against the HL7 parser's field paths", Hl7MappingBody, Hl7MappingResponse, "Mapping rules"),
      async (c) => c.json(await generateHl7MappingFor(c.get("ctx"), c.get("principal"), hl7, c.req.valid("json")), 200),
    )
    .openapi(
      post("/generate/code", "The logic of a custom node (JSONata, FHIRPath or a JavaScript module for code.javascript), checked and run on samples (JavaScript in the sandbox)", CodeBody, CodeResponse, "The node configuration and its results on the samples"),
      async (c) => c.json(await generateCodeFor(c.get("ctx"), c.get("principal"), c.req.valid("json")), 200),
    );
