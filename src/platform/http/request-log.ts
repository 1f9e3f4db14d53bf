// One log line and one metric per request: request id, organization, key id, route pattern
// (never the path: it can hold patient ids), status, duration and error code. Who the caller
// is comes from the app (`who`), so this plumbing knows no feature.
import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import type { HttpEnv } from "./http-env";
import { logger } from "../observability/log";
import { recordMetric } from "../observability/metrics";

export interface Caller {
  org?: string;
  key?: string;
}

export function requestLog<E extends HttpEnv>(who: (c: Context<E>) => Caller) {
  return createMiddleware<E>(async (c, next) => {
    const start = performance.now();
    await next();
    const durationMs = Math.round((performance.now() - start) * 10) / 10;
    const { org, key } = who(c);
    const route = c.req.routePath;
    const status = c.res.status;
    const errorCode = c.get("errorCode") ?? "";
    const log = logger(c.env);
    if (log.enabled("info")) {
      log.info("request", { request_id: c.get("requestId"), org, key_id: key, method: c.req.method, route, status, duration_ms: durationMs, error_code: errorCode || undefined });
    }
    recordMetric(c.env, { kind: "request", org: org ?? "", route, method: c.req.method, status, errorCode, durationMs });
  });
}
