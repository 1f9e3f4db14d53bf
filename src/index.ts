// Worker entry point: the HTTP app and the Durable Object classes it binds.
import { buildApp } from "./app";
import type { Env } from "./platform/env";
import { flushAllAuditLogs } from "./features/fhir/audit-log";
import { runSchedules } from "./features/pipelines/triggers";
import { normalizeFhirBase } from "./features/fhir/routes/fhir";

export { Conversation } from "./features/agents/conversation";
export { ExecutionRunner } from "./features/pipelines/execution-runner";
export { ExportJob } from "./features/export/export-job";
export { MessageRouter } from "./features/inbound/message-router";
export { OrgGate } from "./features/tenancy/org-gate";
export { StepSession } from "./features/pipelines/step-session";

const app = buildApp();

export default {
  fetch: (request, env, ctx) => app.fetch(normalizeFhirBase(request), env, ctx),
  // Every minute: start the deployed pipelines whose schedule triggers are due, and index the
  // AuditEvents of organizations that went quiet before their log reached a flush.
  scheduled: (controller, env, ctx) => {
    ctx.waitUntil(runSchedules(env, new Date(controller.scheduledTime)).then(() => undefined));
    ctx.waitUntil(flushAllAuditLogs(env));
  },
} satisfies ExportedHandler<Env>;
