// Schemas shared by many routes: the error body, list paging, common responses.
import { z } from "@hono/zod-openapi";
import { utf8Exceeds, utf8Length } from "../db/size";

/**
 * A refinement for a JSON value kept in one database row: its JSON is at most `max` UTF-8 bytes
 * (D1 caps a row at 2 MB; each field's limit fits its purpose). Over it: 400 naming the limit.
 */
export const jsonAtMost =
  (max: number) =>
  (value: unknown, ctx: z.RefinementCtx): void => {
    const json = JSON.stringify(value) ?? "";
    if (utf8Exceeds(json, max)) ctx.addIssue({ code: "custom", message: `${utf8Length(json)} bytes of JSON; the limit is ${max} bytes` });
  };

export const ErrorSchema = z
  .object({
    error: z.object({
      code: z.string().openapi({ example: "PIPELINE_NOT_FOUND" }),
      message: z.string(),
      status: z.number().int(),
      details: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
      request_id: z.string().optional(),
    }),
  })
  .openapi("Error");

export const errorResponse = (description: string) => ({
  description,
  content: { "application/json": { schema: ErrorSchema } },
});

/** The error responses every authenticated endpoint can give. */
export const commonErrors = {
  400: errorResponse("Invalid request body or parameters"),
  401: errorResponse("Missing or invalid API key"),
  403: errorResponse("Insufficient permissions, or organization mismatch"),
  429: errorResponse("Rate limit exceeded"),
} as const;

export const notFoundError = { 404: errorResponse("Not found") } as const;
export const conflictError = { 409: errorResponse("Conflict") } as const;
export const tooLargeError = { 413: errorResponse("Too large") } as const;

export const MAX_PAGE_SIZE = 100;

export const PageQuery = z.object({
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(MAX_PAGE_SIZE)
    .default(20)
    .openapi({ description: `Page size (default 20, max ${MAX_PAGE_SIZE})` }),
  offset: z.coerce.number().int().min(0).default(0).openapi({ description: "Items to skip" }),
});

export const security = [{ bearerAuth: [], organizationId: [] }];

/** A JSON response or request body in OpenAPI terms. */
export const json = <T>(schema: T) => ({ "application/json": { schema } });

/** A page of a list endpoint: `{<key>: [...], total_count}`. */
export function pageOf<K extends string, T extends z.ZodType>(key: K, item: T) {
  return z.object({ [key]: z.array(item), total_count: z.number().int() } as { [P in K]: z.ZodArray<T> } & { total_count: z.ZodNumber });
}
