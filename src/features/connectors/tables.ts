// D1 table of connectors to external systems; credentials AES-GCM encrypted.
// org_id leads every key and index.
import { index, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";

export const connectors = sqliteTable(
  "connectors",
  {
    orgId: text("org_id").notNull(),
    id: text("id").notNull(),
    name: text("name").notNull(),
    type: text("type").notNull(),
    endpoint: text("endpoint").notNull(),
    /** Non-secret auth settings (kind, token_url, scope, header_name). */
    auth: text("auth", { mode: "json" }).$type<Record<string, string>>().notNull(),
    /** AES-GCM ciphertext of the credentials object: base64(iv || ciphertext). */
    credentialsEnc: text("credentials_enc"),
    /** Masked credentials for display, e.g. {"client_secret":"****f00d"}. */
    credentialsMasked: text("credentials_masked", { mode: "json" }).$type<Record<string, string>>().notNull(),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.orgId, t.id] }), index("connectors_org_created_idx").on(t.orgId, t.createdAt)],
);

export type ConnectorRow = typeof connectors.$inferSelect;
