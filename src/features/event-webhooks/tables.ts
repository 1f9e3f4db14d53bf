// D1 tables of customer webhooks, on the org's shard: the endpoints an organization registers
// (URL, subscribed event types, encrypted signing secrets, its managed destination, its disable
// state) and the events raised for them, kept for replay by time range (EVENT_RETENTION_DAYS,
// retention.ts). Deliveries and their attempts live in the endpoint's destination queue.
// org_id leads every key and index.
import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";

export const webhookEndpoints = sqliteTable(
  "webhook_endpoints",
  {
    orgId: text("org_id").notNull(),
    id: text("id").notNull(),
    url: text("url").notNull(),
    description: text("description"),
    /** Event types and patterns (subscriptions.ts). */
    eventTypes: text("event_types", { mode: "json" }).$type<string[]>().notNull(),
    enabled: integer("enabled", { mode: "boolean" }).notNull(),
    /** AES-GCM ciphertext of the signing secrets (secrets.ts), newest first. */
    secretsEnc: text("secrets_enc").notNull(),
    /** The destination the endpoint's deliveries queue on (managed: owner webhook/<id>). */
    destinationId: text("destination_id"),
    /** gone (answered 410) or failing (no success for the disable window); null when enabled or disabled by hand. */
    disabledReason: text("disabled_reason"),
    disabledAt: text("disabled_at"),
    /** The first failed attempt since the last success (the disable window counts from it). */
    failingSince: text("failing_since"),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.orgId, t.id] }), index("webhook_endpoints_created_idx").on(t.orgId, t.createdAt)],
);

export type WebhookEndpointRow = typeof webhookEndpoints.$inferSelect;

/** Events raised while at least one enabled endpoint of the org subscribed to their type. */
export const webhookEvents = sqliteTable(
  "webhook_events",
  {
    orgId: text("org_id").notNull(),
    id: text("id").notNull(),
    type: text("type").notNull(),
    occurredAt: text("occurred_at").notNull(),
    data: text("data", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
    recordedAt: text("recorded_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.orgId, t.id] }), index("webhook_events_occurred_idx").on(t.orgId, t.occurredAt)],
);

export type WebhookEventRow = typeof webhookEvents.$inferSelect;
