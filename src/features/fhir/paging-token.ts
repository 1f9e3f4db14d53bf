// Paging tokens (search and history cursors, export positions): JSON in base64url, carrying the
// organization they were issued for. A token comes back from the client, so every field is
// schema-checked before it reaches SQL: a tampered, truncated or foreign token is a 400.
import { z } from "zod";
import { base64url } from "../../platform/base64url";
import { badRequest } from "../../platform/errors";

/** Longer than any token the server issues (sort keys are index values, which are short). */
const MAX_TOKEN_LENGTH = 8192;

const b64url = (s: string) => base64url(new TextEncoder().encode(s));
const unb64url = (s: string) => new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(Uint8Array.from(atob(s.replace(/-/g, "+").replace(/_/g, "/")), (c) => c.charCodeAt(0)));

export const encodePagingToken = <T extends object>(org: string, body: T): string => b64url(JSON.stringify({ ...body, org }));

/**
 * The token's fields, checked against `schema` (strict: no field it does not name) and against
 * the organization asking; anything else is a 400 that says only that the cursor is invalid.
 */
export function decodePagingToken<S extends z.ZodRawShape>(token: string, org: string, schema: S): z.infer<z.ZodObject<S>> {
  let raw: unknown;
  try {
    if (token.length > MAX_TOKEN_LENGTH) throw new Error("too long");
    raw = JSON.parse(unb64url(token));
  } catch {
    throw badRequest("Invalid paging cursor");
  }
  const owner = (raw as { org?: unknown } | null)?.org;
  const { org: _org, ...body } = typeof raw === "object" && raw !== null ? (raw as Record<string, unknown>) : {};
  const parsed = z.object(schema).strict().safeParse(body);
  if (!parsed.success || typeof owner !== "string") throw badRequest("Invalid paging cursor");
  if (owner !== org) throw badRequest("The paging cursor does not belong to this organization");
  return parsed.data;
}

/** Field schemas the tokens share. */
export const tokenFields = {
  resourceType: z.string().regex(/^[A-Z][A-Za-z]{0,63}$/),
  id: z.string().regex(/^[A-Za-z0-9\-.]{1,64}$/),
  instant: z.iso.datetime({ offset: true }),
};
