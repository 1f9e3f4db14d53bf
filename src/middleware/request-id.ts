// Gives every request an id (echoing a sane inbound X-Request-ID) for logs and error bodies.
import { createMiddleware } from "hono/factory";
import type { AppEnv } from "../http/context";

const SANE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export const requestId = createMiddleware<AppEnv>(async (c, next) => {
  const inbound = c.req.header("x-request-id");
  const id = inbound && SANE_ID.test(inbound) ? inbound : crypto.randomUUID();
  c.set("requestId", id);
  c.header("X-Request-ID", id);
  await next();
});
