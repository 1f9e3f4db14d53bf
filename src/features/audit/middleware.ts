// Audits every management request in one place: a table of the management API's routes (method
// and path pattern) names each one's action and where the acted-on entity's id is (a path segment,
// or the response body or Location of a create). After the route answers, the outcome comes from
// its status (2xx success, 4xx refused with the error message, 5xx failed); bodies of requests are
// never read, so no credential, message or chat content reaches an AuditEvent.
import { createMiddleware } from "hono/factory";
import type { AppEnv } from "../../app-env";
import { settingsOf } from "../../platform/settings";
import type { ManagementAction } from "./actions";
import { recordManagementAction } from "./record";

type IdFrom = { param: number } | { body: string } | { location: true } | { org: true };

interface AuditedRoute {
  method: string;
  pattern: RegExp;
  action: ManagementAction;
  id: IdFrom;
}

const SEG = "([^/]+)";
const route = (method: string, path: string, action: ManagementAction, id: IdFrom): AuditedRoute => ({
  method,
  pattern: new RegExp(`^${path.replaceAll("{}", SEG)}/?$`),
  action,
  id,
});
const p1 = { param: 1 } as const;
const p2 = { param: 2 } as const;
const bodyId = { body: "id" } as const;

/** Every management route and its action; a route missing here is not audited (test/audit checks each). */
export const AUDITED_ROUTES: readonly AuditedRoute[] = [
  route("POST", "/api/api-keys", "api_key.create", bodyId),
  route("DELETE", "/api/api-keys/{}", "api_key.revoke", p1),
  route("PUT", "/api/consent/policy", "consent_policy.update", { org: true }),
  route("PUT", "/api/audit/retention", "audit_retention.update", { org: true }),
  route("POST", "/api/pipelines", "pipeline.create", bodyId),
  route("PUT", "/api/pipelines/{}", "pipeline.update", p1),
  route("DELETE", "/api/pipelines/{}", "pipeline.delete", p1),
  route("POST", "/api/pipelines/{}/deploy", "pipeline.deploy", p1),
  route("POST", "/api/pipelines/{}/undeploy", "pipeline.undeploy", p1),
  route("POST", "/api/pipelines/{}/webhook", "execution.start", { body: "execution_id" }),
  route("POST", "/api/execute", "execution.start", { body: "execution_id" }),
  route("POST", "/api/execute/retry", "execution.retry", { body: "execution_id" }),
  route("POST", "/api/execute/step", "execution.step", { body: "session_id" }),
  route("POST", "/api/execute/step/{}", "execution.step", p1),
  route("POST", "/api/agents", "agent.create", bodyId),
  route("PUT", "/api/agents/{}", "agent.update", p1),
  route("DELETE", "/api/agents/{}", "agent.delete", p1),
  route("POST", "/api/agents/{}/deploy", "agent.deploy", p1),
  route("POST", "/api/agents/{}/undeploy", "agent.undeploy", p1),
  route("POST", "/api/agents/{}/versions", "agent.version", p1),
  route("POST", "/api/agents/{}/versions/{}/restore", "agent.restore", p1),
  route("POST", "/api/agents/{}/chat", "agent.chat", p1),
  route("POST", "/api/agents/{}/conversations", "agent.conversation_start", bodyId),
  route("DELETE", "/api/agents/{}/conversations/{}", "agent.conversation_delete", p2),
  route("POST", "/api/agents/{}/conversations/{}/messages", "agent.chat", p1),
  route("POST", "/api/agents/{}/tools", "agent.tool_assign", p1),
  route("DELETE", "/api/agents/{}/tools/{}", "agent.tool_remove", p1),
  route("POST", "/api/v1/agents/{}/invoke", "agent.invoke", p1),
  route("POST", "/api/connectors", "connector.create", bodyId),
  route("PUT", "/api/connectors/{}", "connector.update", p1),
  route("DELETE", "/api/connectors/{}", "connector.delete", p1),
  route("POST", "/api/connectors/{}/test", "connector.test", p1),
  route("POST", "/api/tools", "tool.create", bodyId),
  route("PUT", "/api/tools/{}", "tool.update", p1),
  route("DELETE", "/api/tools/{}", "tool.delete", p1),
  route("POST", "/api/tools/{}/invoke", "tool.invoke", p1),
  route("POST", "/api/hl7/messages/{}/reprocess", "hl7_message.reprocess", p1),
  route("POST", "/api/v1/device-integrations", "device.integration_create", bodyId),
  route("PUT", "/api/v1/device-integrations/{}", "device.integration_change", p1),
  route("DELETE", "/api/v1/device-integrations/{}", "device.integration_delete", p1),
  route("POST", "/api/v1/patients/{}/devices", "device.link", { body: "device_id" }),
  route("DELETE", "/api/v1/patients/{}/devices/{}", "device.unlink", p2),
  route("POST", "/api/v1/devices/{}/sync", "device.sync", p1),
  route("PUT", "/api/v1/devices/source-priority", "device.source_priority_update", { org: true }),
  route("POST", "/api/v1/devices/reading-moves/restore", "device.reading_moves_restore", { org: true }),
  route("POST", "/api/v1/device-platforms/{}/authorizations", "device.link", { body: "device_id" }),
  route("DELETE", "/api/v1/device-platforms/links/{}", "device.unlink", p1),
  route("POST", "/api/v1/device-platforms/links/{}/backfill", "device.sync", p1),
  route("POST", "/api/copilot/suggestions/{}/apply", "copilot.suggestion_apply", p1),
  route("POST", "/api/v1/alert-rules", "alert_rule.create", bodyId),
  route("PUT", "/api/v1/alert-rules/{}", "alert_rule.update", p1),
  route("DELETE", "/api/v1/alert-rules/{}", "alert_rule.delete", p1),
  route("POST", "/api/v1/alerts/{}/acknowledge", "alert.acknowledge", p1),
  route("POST", "/api/v1/alerts/{}/resolve", "alert.resolve", p1),
  route("GET", "/fhir/r4/{}/(?:Patient/|Group/[^/]+/)?\\$export", "export.start", { location: true }),
  route("POST", "/fhir/r4/{}/(?:Patient/|Group/[^/]+/)?\\$export", "export.start", { location: true }),
  route("GET", "/fhir/r4/{}/bulkdata/download/{}/{}", "export.download", p2),
  route("DELETE", "/fhir/r4/{}/bulkdata/status/{}", "export.cancel", p2),
  route("POST", "/api/v1/files", "file.upload", bodyId),
  route("GET", "/api/v1/files/{}/content", "file.download", p1),
  route("DELETE", "/api/v1/files/{}", "file.delete", p1),
];

export function auditedRoute(method: string, path: string): { route: AuditedRoute; params: string[] } | undefined {
  for (const r of AUDITED_ROUTES) {
    if (r.method !== method) continue;
    const m = r.pattern.exec(path);
    if (m) return { route: r, params: m.slice(1) };
  }
  return undefined;
}

async function jsonOf(res: Response): Promise<Record<string, unknown> | undefined> {
  if (!res.headers.get("content-type")?.includes("json")) return undefined;
  try {
    return (await res.clone().json()) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

async function entityIdOf(id: IdFrom, params: string[], res: Response, orgId: string): Promise<string | undefined> {
  if ("param" in id) return params[id.param - 1] && decodeURIComponent(params[id.param - 1]!);
  if ("org" in id) return orgId;
  if ("location" in id) return res.headers.get("content-location")?.split("/").pop() ?? undefined;
  if (!res.ok) return undefined;
  const value = (await jsonOf(res))?.[id.body];
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

/** Records the AuditEvent of each audited route the request matched, once it has answered. */
export const managementAudit = createMiddleware<AppEnv>(async (c, next) => {
  await next();
  if (auditOff(c.env)) return;
  const matched = auditedRoute(c.req.method, c.req.path);
  const principal = c.get("principal");
  const ctx = c.get("ctx");
  if (!matched || !principal || !ctx) return;
  const res = c.res;
  const outcome = res.status < 400 ? "0" : res.status < 500 ? "4" : "8";
  await recordManagementAction(ctx, principal, {
    action: matched.route.action,
    entityId: await entityIdOf(matched.route.id, matched.params, res, principal.orgId),
    outcome,
    ...(outcome === "0" ? {} : { reason: await reasonOf(res) }),
    detail: { method: c.req.method, path: c.req.path, status: String(res.status) },
  });
});
