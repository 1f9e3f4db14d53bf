// Worker entry point: the HTTP app and the Durable Object classes it binds.
import { logger } from "../platform/observability/log";
import { buildApp } from "./app";
import { contextForOrg, orgContexts } from "./context";
import { ExportJob as ExportJobObject } from "../features/export/export-job";
import { MessageRouter as MessageRouterObject } from "../features/inbound/message-router";
import { inboundAdapters } from "./catalogs";
import { Conversation as ConversationObject } from "../features/agents/conversation";
import { ExecutionRunner as ExecutionRunnerObject } from "../features/pipelines/execution-runner";
import { StepSession as StepSessionObject } from "../features/pipelines/step-session";
import { consumeAudits } from "../features/fhir/audit-queue";
import type { Env } from "../platform/env";
import { normalizeFhirBase } from "../features/fhir/routes/fhir";
import { runScheduledWork } from "./scheduled";
import { processDeviceEventBatch } from "../features/devices/platforms/webhooks/queue";
import type { DeviceEventMessage } from "../features/devices/platforms/webhooks/receive";
import { DeviceSync as DeviceSyncObject } from "../features/devices/device-sync";
import { AppleHealthImport as AppleHealthImportObject } from "../features/devices/platforms/apple-health/export-job";
import { BridgeRelay as BridgeRelayObject } from "../features/bridges";
import { callWithLinkTokens } from "../features/devices/platforms/oauth/sync-calls";
import { DestinationQueue as DestinationQueueObject } from "../features/destinations";
import { SubscriptionSockets as SubscriptionSocketsObject } from "../features/subscriptions";
import { ATTEMPT_OBSERVERS, DELIVERY_TRANSPORTS } from "./delivery";

/** wrangler.toml [[queues.consumers]]: the wearable deliveries' queue; the other is the audit queue. */
const DEVICE_EVENTS_QUEUE = "cdis-device-events";

/** Each org Durable Object bound to this deployment's contexts (platform/durable-objects/org-object.ts). */
export class ExportJob extends ExportJobObject {
  protected override readonly contexts = orgContexts;
}
export class Conversation extends ConversationObject {
  protected override readonly contexts = orgContexts;
}
export class ExecutionRunner extends ExecutionRunnerObject {
  protected override readonly contexts = orgContexts;
}
export class StepSession extends StepSessionObject {
  protected override readonly contexts = orgContexts;
}
/** A manual sync calls an OAuth-linked wearable with its platform link's fresh tokens (the device core imports no platform). */
export class DeviceSync extends DeviceSyncObject {
  protected override readonly contexts = orgContexts;
  protected override readonly linkedCall = callWithLinkTokens;
}
export class AppleHealthImport extends AppleHealthImportObject {
  protected override readonly contexts = orgContexts;
}
export { OrgMover } from "../features/operations/org-mover";
export class MessageRouter extends MessageRouterObject {
  protected override readonly contexts = orgContexts;
  protected override readonly adapters = inboundAdapters;
}
export { OrgGate } from "../features/tenancy/org-gate";
export class DestinationQueue extends DestinationQueueObject {
  protected override readonly contexts = orgContexts;
  protected override readonly transports = DELIVERY_TRANSPORTS;
  protected override readonly observers = ATTEMPT_OBSERVERS;
}
/** One per (org, bridge): the bridge's relay WebSocket, hibernating between deliveries (features/bridges). */
export class BridgeRelay extends BridgeRelayObject {
  protected override readonly contexts = orgContexts;
}
/** One per org: the FHIR Subscriptions' websocket clients, hibernating between notifications (features/subscriptions). */
export class SubscriptionSockets extends SubscriptionSocketsObject {
  protected override readonly contexts = orgContexts;
}

const app = buildApp();

export default {
  fetch: (request, env, ctx) => app.fetch(normalizeFhirBase(request), env, ctx),
  // Every minute, on every shard: due schedule triggers and quiet orgs' audit logs (src/main/scheduled.ts).
  scheduled: (controller, env, ctx) => {
    ctx.waitUntil(runScheduledWork(env, new Date(controller.scheduledTime)));
  },
  // Two queues: reads' AuditEvents (stored per org in batches) and wearable platform webhook
  // deliveries (src/features/devices/platforms/webhooks/queue.ts); each batch comes from one of them.
  queue: (batch, env) =>
    batch.queue === DEVICE_EVENTS_QUEUE
      ? processDeviceEventBatch(batch as MessageBatch<DeviceEventMessage>, env, contextForOrg)
      : consumeAudits(batch, (orgId) => contextForOrg(env, orgId), logger(env)),
} satisfies ExportedHandler<Env>;
