// CORS for browser-based clients (SMART apps, consoles on another origin): off unless
// CORS_ORIGINS lists origins. Preflights are answered here, before authentication, since a
// browser sends them without credentials; the headers FHIR and the API use are allowed, and the
// ones a client must read (versions, locations, rate limits) are exposed.
import type { Context } from "hono";
import { cors } from "hono/cors";
import { createMiddleware } from "hono/factory";
import type { HttpEnv } from "./http-env";
import { ApiError } from "../errors";
import { settingsOf } from "../settings";

export const CORS_ALLOWED_HEADERS = [
  "Authorization",
  "X-Organization-ID",
  "Content-Type",
  "Accept",
  "Prefer",
  "If-Match",
  "If-None-Match",
  "If-None-Exist",
  "If-Modified-Since",
  "X-Request-ID",
];

export const CORS_EXPOSED_HEADERS = [
  "ETag",
  "Location",
  "Content-Location",
  "Last-Modified",
  "X-Request-ID",
  "X-RateLimit-Limit",
  "X-RateLimit-Remaining",
  "X-RateLimit-Reset",
  "Retry-After",
  "X-Progress",
  "X-D1-Bookmark",
];

const policies = new WeakMap<object, ReturnType<typeof cors> | null>();

/** The allowed origins of CORS_ORIGINS: "*" for any, else exact origins; empty when unset. */
export function corsOrigins(value: string | undefined): "*" | string[] {
  const list = (value ?? "").split(/[\s,]+/).filter(Boolean);
  if (list.includes("*")) return "*";
  return list.map((o) => {
    const origin = originOf(o);
    if (!origin) throw new ApiError(500, "CONFIGURATION_ERROR", `CORS_ORIGINS: ${JSON.stringify(o)} is not an origin such as https://app.example.org`);
    return origin;
  });
}

function originOf(value: string): string | undefined {
  try {
    const { origin } = new URL(value);
    return origin === "null" ? undefined : origin;
  } catch {
    return undefined;
  }
}

function policyFor(env: object) {
  let policy = policies.get(env);
  if (policy === undefined) {
    const origins = corsOrigins(settingsOf(env).CORS_ORIGINS);
    policy =
      origins === "*" || origins.length
        ? cors({
            origin: origins === "*" ? "*" : (origin) => (origins.includes(origin) ? origin : null),
            allowMethods: ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"],
            allowHeaders: CORS_ALLOWED_HEADERS,
            exposeHeaders: CORS_EXPOSED_HEADERS,
            maxAge: 600,
          })
        : null;
    policies.set(env, policy);
  }
  return policy;
}

export const corsPolicy = createMiddleware<HttpEnv>(async (c: Context<HttpEnv>, next) => {
  const policy = policyFor(c.env);
  return policy ? policy(c, next) : next();
});
