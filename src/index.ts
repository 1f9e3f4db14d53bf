// Worker entry point: the HTTP app and the Durable Object classes it binds.
import { buildApp } from "./app";
import type { Env } from "./platform/env";
import { normalizeFhirBase } from "./features/fhir/routes/fhir";
import { runScheduledWork } from "./scheduled";
import { processDeviceEventBatch } from "./device-platforms/webhooks/queue";
import type { DeviceEventMessage } from "./device-platforms/webhooks/receive";
import { contextForOrg } from "./context";

export { Conversation } from "./features/agents/conversation";
export { ExecutionRunner } from "./features/pipelines/execution-runner";
export { ExportJob } from "./features/export/export-job";
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
  // Wearable platform webhook deliveries (src/device-platforms/webhooks/queue.ts).
  queue: (batch, env) => processDeviceEventBatch(batch as MessageBatch<DeviceEventMessage>, env, contextForOrg),
} satisfies ExportedHandler<Env>;
