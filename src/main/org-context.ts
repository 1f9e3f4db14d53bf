// After authentication: the request's org context (src/main/context.ts), built from the placement the
// key lookup carried, so the directory costs no extra round trip. Writes pause while the org moves.
// Its shard queries run in one D1 session (platform/db/session.ts): a GET or HEAD may read from a
// replica, after the bookmark the client sent back; the response carries the session's bookmark.
import { createMiddleware } from "hono/factory";
import { contextFor } from "./context";
import { BOOKMARK_HEADER, bookmarkFor, openSession } from "../platform/db/session";
import { shardDatabase } from "../platform/shards";
import { checkWritable } from "../platform/write-pause";
import type { HttpEnv } from "../platform/http/http-env";

export const orgContext = createMiddleware<HttpEnv>(async (c, next) => {
  const placement = c.get("placement");
  checkWritable(placement, c.req.method, c.req.path);
  const readOnly = c.req.method === "GET" || c.req.method === "HEAD";
  const bookmark = bookmarkFor(c.req.header(BOOKMARK_HEADER), placement.shard);
  const session = openSession(shardDatabase(c.env, placement.shard), placement.shard, readOnly, bookmark);
  c.set("ctx", contextFor(c.env, placement, session.d1));
  try {
    await next();
  } finally {
    const latest = session.bookmark();
    if (latest) c.header(BOOKMARK_HEADER, latest);
  }
});
