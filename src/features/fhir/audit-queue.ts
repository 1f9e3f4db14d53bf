// AuditEvents of interactions that write nothing else (reads, searches, history, operations,
// refused writes) travel through a Cloudflare Queue, so a read makes no D1 write on its request
// path (docs/audit.md). The request answers only once the queue holds its audit (a sent message
// is durable), and the consumer stores each delivery as one D1 batch per organization,
// idempotent on the event id: a redelivered message adds nothing.
import { type Logger, logger } from "../../platform/observability/log";
import type { OrgData } from "../../platform/org-data";
import type { Resource } from "./port";
import { AuditRows } from "./storage/audit-rows";

export type StoredAudit = Resource & { id: string };

/** What one queue message carries: the organization the audit belongs to, and the event. */
export interface AuditMessage {
  orgId: string;
  event: StoredAudit;
}

/** Longest wait between two deliveries of a failing message (Cloudflare allows 12 hours). */
const MAX_RETRY_DELAY_SECONDS = 300;

/** Resolves once the queue holds every event (durable): the caller answers only after that. */
export async function enqueueAudits(queue: Queue, orgId: string, events: StoredAudit[]): Promise<void> {
  const message = (event: StoredAudit) => ({ body: { orgId, event } satisfies AuditMessage, contentType: "json" as const });
  if (events.length === 1) await queue.send(message(events[0]!).body, { contentType: "json" });
  else if (events.length > 1) await queue.sendBatch(events.map(message));
}

/**
 * AuditEvents per D1 batch of the consumer. It runs beside the requests, in the same Worker and on
 * the same shard, whose single writer each batch holds (an event writes ~34 rows): the reads that
 * arrive meanwhile queue behind it and go before the next chunk, so a short batch bounds their wait.
 * 5 events: a few ms per batch (25 held the writer 20-75 ms at load; docs/fhir-hot-path.md, session 10).
 */
export const AUDIT_WRITE_CHUNK = 5;

/**
 * Stores delivered AuditEvents of one org, AUDIT_WRITE_CHUNK per D1 batch, one batch after the
 * other: indexed, or appended to the pending log while the org moves. A chunk that fails fails the
 * whole call (the delivery is retried); chunks already stored add nothing then (idempotent on the event id).
 */
export async function storeAudits(data: OrgData, events: StoredAudit[]): Promise<void> {
  const rows = new AuditRows(data.d1, data.orgId);
  // While the org moves between shards its rows may only be appended to (the move catches the log up).
  if (data.movingTo !== null) await data.d1.batch(rows.appendAudits(events));
  else await rows.storeAudits(events.map((event) => ({ event, json: JSON.stringify(event) })), AUDIT_WRITE_CHUNK);
}

/** A message this consumer can store: an AuditEvent with an id, recorded for the org it names. */
export function auditMessageOf(body: unknown): AuditMessage | undefined {
  if (typeof body !== "object" || body === null) return undefined;
  const { orgId, event } = body as Partial<AuditMessage>;
  if (typeof orgId !== "string" || typeof event !== "object" || event === null) return undefined;
  if (event.resourceType !== "AuditEvent" || typeof event.id !== "string") return undefined;
  // The producer writes its principal's org into both: a message whose two disagree is not ours.
  if ((event as { source?: { site?: unknown } }).source?.site !== orgId) return undefined;
  return { orgId, event };
}

/**
 * The queue consumer: groups a delivery by organization and stores each group in one batch. A
 * group that fails (its shard unreachable, the directory not answering) is retried with growing
 * delays and finally goes to the dead-letter queue; other groups are acknowledged. A message that
 * is no AuditEvent of the org it names is acknowledged and logged: it can be stored nowhere.
 */
export async function consumeAudits(batch: MessageBatch<unknown>, dataFor: (orgId: string) => Promise<OrgData>, log: Logger = logger(undefined)): Promise<void> {
  const byOrg = new Map<string, { messages: Message<unknown>[]; events: StoredAudit[] }>();
  for (const message of batch.messages) {
    const audit = auditMessageOf(message.body);
    if (!audit) {
      log.error("audit queue: not an AuditEvent message, dropped", { message_id: message.id });
      message.ack();
      continue;
    }
    const group = byOrg.get(audit.orgId) ?? { messages: [], events: [] };
    group.messages.push(message);
    // The same event delivered twice in one batch is stored once.
    if (!group.events.some((e) => e.id === audit.event.id)) group.events.push(audit.event);
    byOrg.set(audit.orgId, group);
  }
  await Promise.all(
    [...byOrg].map(async ([orgId, { messages, events }]) => {
      try {
        await storeAudits(await dataFor(orgId), events);
        for (const m of messages) m.ack();
      } catch (e) {
        log.error("audit queue: storing failed, will retry", { org: orgId, count: events.length, error_message: String(e) });
        for (const m of messages) m.retry({ delaySeconds: Math.min(MAX_RETRY_DELAY_SECONDS, 2 ** m.attempts) });
      }
    }),
  );
}
