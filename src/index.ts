// Worker entry point: the HTTP app and the Durable Object classes it binds.
import { buildApp } from "./app";
import type { Env } from "./env";
import { flushAllAuditLogs } from "./fhir/audit-log";
import { runSchedules } from "./pipelines/triggers";
import { normalizeFhirBase } from "./routes/fhir";

export { Conversation } from "../durable-objects/conversation";
export { ExecutionRunner } from "../durable-objects/execution-runner";
export { ExportJob } from "../durable-objects/export-job";
export { MessageRouter } from "../durable-objects/message-router";
export { OrgGate } from "../durable-objects/org-gate";
export { StepSession } from "../durable-objects/step-session";

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
