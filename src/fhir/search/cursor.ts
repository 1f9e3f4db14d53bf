// Paging cursors: keyset positions (sort values and id of a boundary row) that carry the
// organization and the query they belong to, so a cursor is useless to any other tenant or query.
import { badRequest } from "../../errors";

export interface Cursor {
  org: string;
  /** Fingerprint of the query (filters and sort) the cursor was issued for. */
  q: string;
  /** "n": rows after the position; "p": rows before it. */
  dir: "n" | "p";
  keys: (string | number | null)[];
  id: string;
  type: string;
  /** "scan": the first page chose the sort-ordered plan (src/fhir/search/sort-scan.ts). */
  plan?: "scan";
}

const b64url = (s: string) => btoa(String.fromCharCode(...new TextEncoder().encode(s))).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
const unb64url = (s: string) =>
  new TextDecoder().decode(Uint8Array.from(atob(s.replace(/-/g, "+").replace(/_/g, "/")), (c) => c.charCodeAt(0)));

export const encodeCursor = (c: Cursor): string => b64url(JSON.stringify(c));

export function decodeCursor(token: string, org: string, fingerprint: string): Cursor {
  let c: Cursor;
  try {
    c = JSON.parse(unb64url(token)) as Cursor;
  } catch {
    throw badRequest("Invalid paging cursor");
  }
  if (c.org !== org || c.q !== fingerprint || !Array.isArray(c.keys) || typeof c.id !== "string") {
    throw badRequest("The paging cursor does not belong to this organization and query");
  }
  return c;
}

/** A stable fingerprint of a query string without its paging parameter. */
export function queryFingerprint(params: URLSearchParams): string {
  const kept = [...params].filter(([k]) => k !== "_cursor").map(([k, v]) => `${k}=${v}`).sort();
  let h = 2166136261;
  for (const ch of kept.join("&")) h = Math.imul(h ^ ch.charCodeAt(0), 16777619) >>> 0;
  return h.toString(36);
}
