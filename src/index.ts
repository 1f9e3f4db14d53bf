// Worker entry point: the HTTP app and the Durable Object classes it binds.
import { buildApp } from "./app";
import { contextForOrg } from "./context";
import { consumeAudits } from "./features/fhir/audit-queue";
import type { Env } from "./platform/env";
import { normalizeFhirBase } from "./features/fhir/routes/fhir";
import { runScheduledWork } from "./scheduled";

export { Conversation } from "./features/agents/conversation";
export { ExecutionRunner } from "./features/pipelines/execution-runner";
export { ExportJob } from "./features/export/export-job";
export { DeviceSync } from "./features/devices/device-sync";
export { MessageRouter } from "./features/inbound/message-router";
export { OrgGate } from "./features/tenancy/org-gate";
export { StepSession } from "./features/pipelines/step-session";

const app = buildApp();

export default {
  fetch: (request, env, ctx) => app.fetch(normalizeFhirBase(request), env, ctx),
  // Every minute, on every shard: due schedule triggers and quiet orgs' audit logs (src/scheduled.ts).
  scheduled: (controller, env, ctx) => {
    ctx.waitUntil(runScheduledWork(env, new Date(controller.scheduledTime)));
  },
  // The audit queue (AUDIT_QUEUE, its only queue): AuditEvents of reads, stored per org in batches.
  queue: (batch, env) => consumeAudits(batch, (orgId) => contextForOrg(env, orgId)),
} satisfies ExportedHandler<Env>;
