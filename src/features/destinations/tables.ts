// D1 table of destinations, on the org's shard: where each named queue delivers and how it
// retries. The messages themselves live in each destination's Durable Object (destination-queue.ts),
// which is the unit of ordering. Signing secrets are AES-GCM encrypted. org_id leads every key.
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import type { DeliveryTarget, Ordering, RetryPolicy } from "./model";

export const destinations = sqliteTable(
  "destinations",
  {
    orgId: text("org_id").notNull(),
    id: text("id").notNull(),
    name: text("name").notNull(),
    description: text("description"),
    target: text("target", { mode: "json" }).$type<DeliveryTarget>().notNull(),
    /** Set when a feature manages the destination for one of its resources (a Subscription, a webhook endpoint). */
    ownerKind: text("owner_kind"),
    ownerId: text("owner_id"),
    ordering: text("ordering").$type<Ordering>().notNull(),
    concurrency: integer("concurrency").notNull(),
    retry: text("retry", { mode: "json" }).$type<RetryPolicy>().notNull(),
    timeoutMs: integer("timeout_ms").notNull(),
    http: text("http", { mode: "json" }).$type<{ method: "POST" | "PUT"; headers: Record<string, string> }>().notNull(),
    /** HL7 v2 header defaults for messages built for this destination (hl7.from_fhir's msh). */
    hl7: text("hl7", { mode: "json" }).$type<Record<string, string>>(),
    /** AES-GCM ciphertext of the signing secrets (JSON list, newest first). */
    signingEnc: text("signing_enc"),
    state: text("state").$type<"active" | "paused">().notNull(),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.orgId, t.id] }),
    uniqueIndex("destinations_name_idx").on(t.orgId, t.name),
    uniqueIndex("destinations_owner_idx").on(t.orgId, t.ownerKind, t.ownerId),
    index("destinations_created_idx").on(t.orgId, t.createdAt),
  ],
);

export type DestinationRow = typeof destinations.$inferSelect;
