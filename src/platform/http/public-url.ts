// The one place absolute URLs are built (Bundle links and fullUrls, Location and
// Content-Location, export manifests). They start from PUBLIC_BASE_URL, never from the
// request's Host header: a client following a link built from `Host: evil.example`
// would send its API key there. Only development (DEV_MODE=true) falls back to the
// request's own origin; a deployment without the setting answers every request with a
// configuration error rather than guess.
import { logger } from "../observability/log";
import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import { ApiError } from "../errors";
import { settingsOf } from "../settings";
import type { HttpEnv } from "./http-env";

export const configurationError = (message: string) => new ApiError(500, "CONFIGURATION_ERROR", message);

/** PUBLIC_BASE_URL without its trailing slash, or an error saying what is wrong with it. */
export function parsePublicBaseUrl(raw: string): string | { error: string } {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    return { error: `PUBLIC_BASE_URL ${JSON.stringify(raw)} is not an absolute URL` };
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return { error: "PUBLIC_BASE_URL must be an http(s) URL" };
  if (url.username || url.password || url.search || url.hash) {
    return { error: "PUBLIC_BASE_URL must not carry credentials, a query or a fragment" };
  }
  return `${url.origin}${url.pathname.replace(/\/+$/, "")}`;
}

/**
 * PUBLIC_BASE_URL (no trailing slash) for work outside a request (pipelines, Durable Objects,
 * cron): undefined when the deployment has none or a malformed one (its requests already fail).
 */
export function configuredPublicBaseUrl(env: object): string | undefined {
  const raw = settingsOf(env).PUBLIC_BASE_URL;
  const parsed = raw === undefined ? undefined : parsePublicBaseUrl(raw);
  return typeof parsed === "string" ? parsed : undefined;
}

/** The base every absolute URL of this request starts with (no trailing slash). */
export function publicBaseUrl(env: object, requestUrl: string): string {
  const settings = settingsOf(env);
  if (settings.PUBLIC_BASE_URL !== undefined) {
    const parsed = parsePublicBaseUrl(settings.PUBLIC_BASE_URL);
    if (typeof parsed !== "string") throw configurationError(parsed.error);
    return parsed;
  }
  if (settings.DEV_MODE === "true") return new URL(requestUrl).origin;
  throw configurationError("PUBLIC_BASE_URL is not set: the service will not build links from the request's Host header");
}

/** Resolves the base once per request; a misconfigured deployment fails here, on its first request. */
export const resolvePublicBase = createMiddleware<HttpEnv>(async (c, next) => {
  try {
    c.set("publicBaseUrl", publicBaseUrl(c.env, c.req.url));
  } catch (err) {
    logger(c.env).error("public base URL", { request_id: c.get("requestId"), error_message: (err as Error).message });
    throw err;
  }
  await next();
});

/** The absolute URL of `path` (which starts with "/") as clients must reach it. */
export function absoluteUrl<E extends HttpEnv>(c: Context<E>, path: string): string {
  return `${c.get("publicBaseUrl")}${path}`;
}

/** The path and query of this request, as routed. */
export function requestPath<E extends HttpEnv>(c: Context<E>): string {
  const url = new URL(c.req.url);
  return `${url.pathname}${url.search}`;
}

/** This request's own URL, rebuilt on the public base. */
export function requestUrl<E extends HttpEnv>(c: Context<E>): string {
  return absoluteUrl(c, requestPath(c));
}

/** The FHIR base of the request's organization (routes under /fhir/r4/:orgId; authentication checked the key belongs to it). */
export function fhirBaseUrl<E extends HttpEnv>(c: Context<E>): string {
  return absoluteUrl(c, `/fhir/r4/${encodeURIComponent(c.req.param("orgId") ?? "")}`);
}
