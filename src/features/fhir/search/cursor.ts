// Paging cursors: keyset positions (sort values and id of a boundary row) that carry the
// organization and the query they belong to, so a cursor is useless to any other tenant or query.
import { z } from "zod";
import { badRequest } from "../../../platform/errors";
import { decodePagingToken, encodePagingToken, tokenFields } from "../paging-token";

const CURSOR = {
  /** Fingerprint of the query (filters and sort) the cursor was issued for. */
  q: z.string().max(16),
  /** "n": rows after the position; "p": rows before it. */
  dir: z.enum(["n", "p"]),
  /** The boundary row's sort values, in the plan's order (bound as SQL values). */
  keys: z.array(z.union([z.string().max(2048), z.number().finite(), z.null()])).max(8),
  id: tokenFields.id,
  type: tokenFields.resourceType,
  /** The plan of the first page (src/fhir/search/page.ts), which later pages keep. */
  plan: z.enum(["general", "scan", "walk"]).optional(),
};

export type Cursor = z.infer<z.ZodObject<typeof CURSOR>>;

export const encodeCursor = (org: string, c: Cursor): string => encodePagingToken(org, c);

/** The cursor, if it is well formed, this organization's, for this query, with `keys` sort values. */
export function decodeCursor(token: string, org: string, fingerprint: string, keys: number): Cursor {
  const c = decodePagingToken(token, org, CURSOR);
  if (c.q !== fingerprint || c.keys.length !== keys) throw badRequest("The paging cursor does not belong to this query");
  return c;
}

/** A stable fingerprint of a query string without its paging parameter. */
export function queryFingerprint(params: URLSearchParams): string {
  const kept = [...params].filter(([k]) => k !== "_cursor").map(([k, v]) => `${k}=${v}`).sort();
  let h = 2166136261;
  for (const ch of kept.join("&")) h = Math.imul(h ^ ch.charCodeAt(0), 16777619) >>> 0;
  return h.toString(36);
}
