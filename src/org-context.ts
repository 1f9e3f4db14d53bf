// After authentication: the request's org context (src/context.ts), built from the placement the
// key lookup carried, so the directory costs no extra round trip. Writes pause while the org moves.
import { createMiddleware } from "hono/factory";
import { contextFor } from "./context";
import { checkWritable } from "./platform/write-pause";
import type { AppEnv } from "./app-env";

export const orgContext = createMiddleware<AppEnv>(async (c, next) => {
  const placement = c.get("placement");
  checkWritable(placement, c.req.method, c.req.path);
  c.set("ctx", contextFor(c.env, placement));
  await next();
});
