// Response sets the copilot's routes share.
import { createRoute, z } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import type { RouteAudit } from "../../../platform/http/route-audit";
import { notAudited } from "../../audit";
import { commonErrors, ErrorSchema, json, notFoundError, security } from "../../../platform/http/schemas";

const error = (description: string) => ({ description, content: json(ErrorSchema) });

export const tags = ["Copilot"];

/** Deterministic endpoints: no model involved. */
export const deterministicErrors = { ...commonErrors, ...notFoundError } as const;

/** Model-backed endpoints: the model's failures and a generation that never validated. */
export const modelErrors = {
  ...deterministicErrors,
  422: error("GENERATION_INVALID: the model's answers never passed the service's validator; details hold the last attempt's errors"),
  502: error("MODEL_ERROR: the model answered with a failure"),
  503: error("MODEL_UNAVAILABLE: no language model is configured or reachable for this organization"),
  504: error("MODEL_TIMEOUT: the model did not answer in time"),
} as const;

export const SSE_CONTENT = { "text/event-stream": { schema: z.string() } };

/** The spec's copilot paths read verb/object (`/validate/pipeline`): copilotValidatePipeline. */
export function copilotOperationId(path: string): string {
  const words = ["copilot", ...path.split(/[/-]/).filter(Boolean)];
  return words.map((w, i) => (i === 0 ? w : w[0]!.toUpperCase() + w.slice(1))).join("");
}

/** Most copilot POSTs only compute: what the caller then does with the answer (PUT a pipeline, POST an agent) is audited there. */
export const answersOnly = notAudited("computes an answer from the request and the organization's definitions; stores and changes nothing");

/** A JSON POST route of the copilot: body in, one JSON answer out, with the given errors. */
export function jsonPost<B extends z.ZodType, R extends z.ZodType, E extends object>(r: {
  path: string;
  summary: string;
  body: B;
  response: R;
  description: string;
  middleware: MiddlewareHandler;
  errors: E;
  audit: RouteAudit;
}) {
  return createRoute({
    method: "post",
    path: r.path,
    operationId: copilotOperationId(r.path),
    audit: r.audit,
    tags,
    summary: r.summary,
    security,
    middleware: r.middleware,
    request: { body: { required: true, content: json(r.body) } },
    responses: { 200: { description: r.description, content: json(r.response) }, ...r.errors },
  });
}
