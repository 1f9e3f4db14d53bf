// Audits every management request in one place: each route declares its action where it is
// defined (declarations.ts, platform/http/route-audit.ts), with where the acted-on entity's id is
// (a path parameter, the answer's id or Content-Location, the organization). After the route
// answers, the outcome comes from its status (2xx success, 4xx refused with the error message, 5xx
// failed); bodies of requests are never read, so no credential, message or chat content reaches
// an AuditEvent.
import { createMiddleware } from "hono/factory";
import type { HttpEnv } from "../../platform/http/http-env";
import { settingsOf } from "../../platform/settings";
import { type EntityFrom, declarationOf } from "./declarations";
import { recordManagementAction } from "./record";

async function jsonOf(res: Response): Promise<Record<string, unknown> | undefined> {
  if (!res.headers.get("content-type")?.includes("json")) return undefined;
  try {
    return (await res.clone().json()) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

async function entityIdOf(from: EntityFrom | undefined, params: Record<string, string>, res: Response, orgId: string): Promise<string | undefined> {
  if (!from) return undefined;
  // Hono decoded the parameter, leaving a malformed escape as it came (the app refuses those first).
  if ("param" in from) return params[from.param] || undefined;
  if ("organization" in from) return orgId;
  if ("contentLocation" in from) return res.headers.get("content-location")?.split("/").pop() ?? undefined;
  if (!res.ok) return undefined;
  const value = (await jsonOf(res))?.[from.response];
  return typeof value === "string" ? value : undefined;
}

/** Why a request failed, from the error body of either shape (API error or OperationOutcome). */
async function reasonOf(res: Response): Promise<string> {
  const body = await jsonOf(res);
  const error = body?.error as { code?: string; message?: string } | undefined;
  if (error?.message) return `${error.code ?? res.status}: ${error.message}`;
  const issue = (body?.issue as { diagnostics?: string }[] | undefined)?.[0]?.diagnostics;
  return issue ?? `HTTP ${res.status}`;
}

/** Only a local run may switch the trail off (bench/audit.ts); a deployment always audits. */
function auditOff(env: object): boolean {
  const s = settingsOf(env);
  return s.DEV_MODE === "true" && s.MANAGEMENT_AUDIT === "off";
}

/** Records the AuditEvent of the route that answered, when it declared an action for this middleware to record. */
export const managementAudit = createMiddleware<HttpEnv>(async (c, next) => {
  await next();
  if (auditOff(c.env)) return;
  const declared = c.get("routeAudit");
  const principal = c.get("principal");
  const ctx = c.get("ctx");
  if (!declared || !principal || !ctx) return;
  const audit = declarationOf(declared.audit);
  if (audit.kind !== "audited") return;
  const res = c.res;
  const outcome = res.status < 400 ? "0" : res.status < 500 ? "4" : "8";
  await recordManagementAction(ctx, principal, {
    action: audit.action,
    entityId: await entityIdOf(audit.entity, declared.params, res, principal.orgId),
    outcome,
    ...(outcome === "0" ? {} : { reason: await reasonOf(res) }),
    detail: { method: c.req.method, path: c.req.path, status: String(res.status) },
  });
});
