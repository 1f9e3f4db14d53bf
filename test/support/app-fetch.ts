// Fetch through an app built with test wiring (buildApp options) rather than the Worker's own.
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import type { buildApp } from "../../src/main/app";
import type { Tenant } from "./tenants";

/** `withEnv`: bindings and settings for this app only (e.g. LOG_LEVEL, a recording METRICS). */
export function appFetch(app: ReturnType<typeof buildApp>, t?: Pick<Tenant, "orgId" | "key">, withEnv: object = env) {
  return async (path: string, init: RequestInit & { json?: unknown } = {}): Promise<Response> => {
    const { json, ...rest } = init;
    const headers = new Headers(rest.headers);
    if (t && !headers.has("authorization")) headers.set("authorization", `Bearer ${t.key}`);
    if (t && !headers.has("x-organization-id")) headers.set("x-organization-id", t.orgId);
    if (json !== undefined) {
      headers.set("content-type", "application/fhir+json");
      rest.body = JSON.stringify(json);
    }
    const ctx = createExecutionContext();
    const res = await app.fetch(new Request(`http://localhost${path}`, { ...rest, headers }), withEnv, ctx);
    await waitOnExecutionContext(ctx);
    return res;
  };
}
