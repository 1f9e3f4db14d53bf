// Stored suggestions: create (for a stored pipeline), list, apply as a new pipeline version.
import { createRoute } from "@hono/zod-openapi";
import { createRouter } from "../../../platform/http/router";
import { conflictError, json, security } from "../../../platform/http/schemas";
import { Pipeline, presentPipeline } from "../../pipelines";
import { requirePermission } from "../../tenancy";
import { presentSuggestion, SuggestBody, SuggestionIdParam, SuggestionSchema, SuggestionsQuery, SuggestionsResponse } from "../schemas";
import { applySuggestion, createSuggestions, listSuggestions } from "../use-cases/suggestions";
import { deterministicErrors, jsonPost, modelErrors, tags } from "./responses";
import { z } from "@hono/zod-openapi";
import type { HttpEnv } from "../../../platform/http/http-env";
import { audited, byId, notAudited } from "../../audit";

const manage = requirePermission("pipelines:manage");

export const suggestionRoutes = createRouter<HttpEnv>()
  .openapi(
    jsonPost({
      path: "/suggestions",
      summary: "Compute and store improvement suggestions for a stored pipeline, each a diff on its current version",
      body: SuggestBody,
      response: SuggestionsResponse,
      description: "The suggestions stored (only changes the validator accepts)",
      middleware: manage,
      errors: modelErrors,
      audit: notAudited("stores proposals only: no pipeline changes until one is applied, which is audited (copilot.suggestion_apply)"),
    }),
    async (c) => {
      const rows = await createSuggestions(c.get("ctx"), c.get("principal"), c.req.valid("json"));
      return c.json({ suggestions: rows.map(presentSuggestion), total_count: rows.length }, 200);
    },
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/suggestions",
      tags,
      summary: "List stored suggestions (newest first), optionally of one pipeline",
      security,
      middleware: requirePermission("pipelines:read"),
      request: { query: SuggestionsQuery },
      responses: { 200: { description: "Page of suggestions", content: json(SuggestionsResponse) }, ...deterministicErrors },
    }),
    async (c) => {
      const q = c.req.valid("query");
      const { rows, total } = await listSuggestions(c.get("ctx"), q.pipeline_id, q.limit, q.offset);
      return c.json({ suggestions: rows.map(presentSuggestion), total_count: total }, 200);
    },
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/suggestions/{id}/apply",
      audit: audited("copilot.suggestion_apply", byId),
      tags,
      summary: "Apply a suggestion as the pipeline's next version (409 if the pipeline changed since)",
      security,
      middleware: manage,
      request: { params: SuggestionIdParam },
      responses: {
        200: { description: "The applied suggestion and the saved pipeline", content: json(z.object({ suggestion: SuggestionSchema, pipeline: Pipeline })) },
        ...deterministicErrors,
        ...conflictError,
      },
    }),
    async (c) => {
      const { suggestion, pipeline } = await applySuggestion(c.get("ctx"), c.req.valid("param").id);
      return c.json({ suggestion: presentSuggestion(suggestion), pipeline: presentPipeline(pipeline) }, 200);
    },
  );
