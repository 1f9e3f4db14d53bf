// Inbound message store: every message received from the bridge or an HTTP
// sender, of any protocol, with its processing state. `seq` orders messages per sender (FIFO).
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

/**
 * received: waiting in its sender's line; processed: every matching deployed pipeline ran;
 * unrouted: no deployed pipeline matched it (reprocess it once one is deployed); failed: a
 * pipeline failed or retries ran out; rejected: unparseable, never routed.
 */
export const MESSAGE_STATUSES = ["received", "processed", "unrouted", "failed", "rejected"] as const;
export type MessageStatus = (typeof MESSAGE_STATUSES)[number];

export interface MessageError {
  code: string;
  message: string;
  at?: string;
}

export const inboundMessages = sqliteTable(
  "inbound_messages",
  {
    seq: integer("seq").primaryKey({ autoIncrement: true }),
    id: text("id").notNull(),
    orgId: text("org_id").notNull(),
    /** The inbound adapter that read the message (features/inbound/adapter.ts), e.g. hl7v2. */
    protocol: text("protocol").notNull(),
    /** Id the sender (e.g. the bridge) gave the message; stable across its retries. */
    clientId: text("client_id"),
    /** The sender's line, as its adapter names it (HL7: MSH-3|MSH-4); null when unidentifiable. */
    sender: text("sender"),
    controlId: text("control_id"),
    messageType: text("message_type"),
    triggerEvent: text("trigger_event"),
    version: text("version"),
    /** The message text; "" when it is kept in R2 under raw_key (large messages, e.g. MDM with a PDF). */
    raw: text("raw").notNull(),
    rawKey: text("raw_key"),
    status: text("status", { enum: MESSAGE_STATUSES }).notNull(),
    receivedAt: text("received_at").notNull(),
    source: text("source", { mode: "json" }).$type<Record<string, string>>(),
    /** Executions started for the message and FHIR references they produced. */
    executions: text("executions", { mode: "json" }).$type<string[]>().notNull().default([]),
    resources: text("resources", { mode: "json" }).$type<string[]>().notNull().default([]),
    error: text("error", { mode: "json" }).$type<MessageError>(),
    /** Times its pipelines ran it (the successful run included), since it was last (re)queued. */
    attempts: integer("attempts").notNull().default(0),
    /** The acknowledgement answered when it was first received (HL7 v2: the commit ACK). */
    ack: text("ack"),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [
    uniqueIndex("inbound_messages_org_id_uq").on(t.orgId, t.id),
    // Idempotency: one message per (protocol, sender, control id). NULLs (rejected, unparseable) never collide.
    uniqueIndex("inbound_messages_dedupe_uq").on(t.orgId, t.protocol, t.sender, t.controlId),
    uniqueIndex("inbound_messages_client_uq").on(t.orgId, t.clientId),
    index("inbound_messages_sender_status_idx").on(t.orgId, t.sender, t.status, t.seq),
    index("inbound_messages_received_idx").on(t.orgId, t.seq),
  ],
);

export type InboundMessageRow = typeof inboundMessages.$inferSelect;
