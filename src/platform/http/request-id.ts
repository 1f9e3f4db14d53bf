// Gives every request an id (echoing a sane inbound X-Request-ID) for logs and error bodies,
// and every response a Date header (RFC 9110 asks it of an origin server with a clock; workerd
// does not add one, and clients compare Expires and Retry-After against it).
import { createMiddleware } from "hono/factory";
import type { HttpEnv } from "./http-env";

const SANE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export const requestId = createMiddleware<HttpEnv>(async (c, next) => {
  const inbound = c.req.header("x-request-id");
  const id = inbound && SANE_ID.test(inbound) ? inbound : crypto.randomUUID();
  c.set("requestId", id);
  c.header("X-Request-ID", id);
  c.header("Date", new Date().toUTCString());
  await next();
});
