// Verified webhook deliveries, one row each: the queue's work item and its visible state
// (queued → processed | no_readings | failed → … → dead). The queue consumer records a delivery (the webhook
// only queues it); a byte-identical replay hits the unique index, adds nothing and is counted on
// the first delivery's row. Readings the device core refuses are counted with their reasons, so a
// processed delivery never claims readings it did not store. Rows live on the org's shard.
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

export const deviceWebhookEvents = sqliteTable(
  "device_webhook_events",
  {
    orgId: text("org_id").notNull(),
    id: text("id").notNull(),
    kind: text("kind").notNull(),
    /** SHA-256 of the raw body: the replay key. */
    bodySha256: text("body_sha256").notNull(),
    body: text("body").notNull(),
    /** queued | processed | no_readings (a body with data yielded nothing; `error` says why) | failed (will retry) | dead (retries exhausted) */
    status: text("status").notNull(),
    attempts: integer("attempts").notNull(),
    readings: integer("readings").notNull(),
    deleted: integer("deleted").notNull(),
    /** Readings the device core refused (unknown metric, bad time, no active device link...): counted, never stored. */
    rejected: integer("rejected").notNull().default(0),
    /** Of `readings`, those that changed an Observation already stored (a vendor's updated record): each a new version. */
    updated: integer("updated").notNull().default(0),
    /** The first refusals, each with the vendor record, the metric and the reason. */
    rejections: text("rejections", { mode: "json" }).$type<Rejection[]>(),
    /** Byte-identical re-deliveries from the vendor, dropped by the consumer. */
    replays: integer("replays").notNull().default(0),
    error: text("error"),
    receivedAt: text("received_at").notNull(),
    processedAt: text("processed_at"),
  },
  (t) => [
    primaryKey({ columns: [t.orgId, t.id] }),
    uniqueIndex("device_webhook_events_replay_idx").on(t.orgId, t.kind, t.bodySha256),
    index("device_webhook_events_received_idx").on(t.orgId, t.receivedAt),
  ],
);

export type DeviceWebhookEventRow = typeof deviceWebhookEvents.$inferSelect;

export interface Rejection {
  readonly record: string;
  readonly metric: string;
  readonly reason: string;
}
