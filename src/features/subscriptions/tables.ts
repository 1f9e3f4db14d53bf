// D1 tables of FHIR Subscriptions, on the org's shard: each subscription's delivery state (its
// event counter, heartbeat schedule, failure streak) and its event log (what $events replays and
// $status counts). The Subscription resource itself stays in the FHIR store. org_id leads every key.
import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";

export const subscriptionStates = sqliteTable(
  "subscription_states",
  {
    orgId: text("org_id").notNull(),
    subscriptionId: text("subscription_id").notNull(),
    /** The Subscription's current version as stored (JSON): what the isolate's cache of active subscriptions reads. */
    resource: text("resource").notNull(),
    status: text("status").notNull(),
    /** Its managed destination (the queue its notifications go through); null until one is made. */
    destinationId: text("destination_id"),
    /** Events numbered so far (the last event's number; events-since-subscription-start). */
    eventCount: integer("event_count").notNull().default(0),
    /** Seconds between heartbeats; null: none. */
    heartbeatSeconds: integer("heartbeat_seconds"),
    /** When the next heartbeat is due (ISO 8601); null: none. */
    nextHeartbeatAt: text("next_heartbeat_at"),
    /** The handshake's delivery id, once one was sent. */
    handshakeId: text("handshake_id"),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.orgId, t.subscriptionId] }), index("subscription_states_heartbeat_idx").on(t.nextHeartbeatAt)],
);

export const subscriptionEvents = sqliteTable(
  "subscription_events",
  {
    orgId: text("org_id").notNull(),
    subscriptionId: text("subscription_id").notNull(),
    eventNumber: integer("event_number").notNull(),
    occurredAt: text("occurred_at").notNull(),
    /** The focus: Type/id and the version the change stored. */
    focusType: text("focus_type").notNull(),
    focusId: text("focus_id").notNull(),
    focusVersion: text("focus_version").notNull(),
    action: text("action").$type<"create" | "update" | "delete">().notNull(),
  },
  (t) => [primaryKey({ columns: [t.orgId, t.subscriptionId, t.eventNumber] })],
);

export type SubscriptionStateRow = typeof subscriptionStates.$inferSelect;
export type SubscriptionEventRow = typeof subscriptionEvents.$inferSelect;
