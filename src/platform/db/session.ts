// D1 read replication through the Sessions API: each request's queries on its organization's
// shard run in one session, so on Cloudflare a read may be served by a replica near the client
// while the request still sees its own writes in order. The session's bookmark goes back to the
// client (X-D1-Bookmark) and, sent with a later request, makes that request's reads at least as
// new as everything the earlier one did: a client reads its own writes across requests. A
// bookmark names its shard, so one from before the org moved between shards is ignored.
import { ApiError } from "../errors";

export const BOOKMARK_HEADER = "X-D1-Bookmark";
/** D1 bookmarks are hex segments joined by dashes (about 60 characters); anything else is refused. */
const BOOKMARK = /^[0-9a-f-]{1,128}$/i;

export interface D1Session {
  /** The session as a database: stores call prepare and batch on it (exec and the rest go to the primary). */
  readonly d1: D1Database;
  /** `<shard>:<bookmark>` of the latest query, for the response header; null before any query. */
  bookmark(): string | null;
}

/**
 * The bookmark a client sent for `shard`: undefined without one or for another shard, 400 when
 * malformed (it is opaque to the client, who should only send back what it received).
 */
export function bookmarkFor(header: string | undefined, shard: string): string | undefined {
  if (header === undefined || header === "") return undefined;
  const at = header.lastIndexOf(":");
  const [from, bookmark] = at < 0 ? ["", header] : [header.slice(0, at), header.slice(at + 1)];
  if (!BOOKMARK.test(bookmark)) {
    throw new ApiError(400, "INVALID_BOOKMARK", `${BOOKMARK_HEADER} must be a value this service returned in ${BOOKMARK_HEADER}`);
  }
  return from === shard ? bookmark : undefined;
}

/**
 * Opens a session on `db`: after `bookmark` when the client sent one, else on any copy for a
 * request that only reads ("first-unconstrained") and on the primary for one that may write.
 */
export function openSession(db: D1Database, shard: string, readOnly: boolean, bookmark?: string): D1Session {
  const session = db.withSession(bookmark ?? (readOnly ? "first-unconstrained" : "first-primary"));
  const d1 = {
    prepare: (query: string) => session.prepare(query),
    batch: <T = unknown>(statements: D1PreparedStatement[]) => session.batch<T>(statements),
    exec: (query: string) => db.exec(query),
    withSession: (constraint?: string) => db.withSession(constraint),
    dump: () => db.dump(),
  } as D1Database;
  return {
    d1,
    bookmark: () => {
      const b = session.getBookmark();
      return b ? `${shard}:${b}` : null;
    },
  };
}
