// The control database's organizations table: the directory the request path reads (an
// organization's data shard, and the target while it moves: platform/directory.ts), here in the
// platform so that a feature's tables name it for foreign keys without importing another feature.
import { sqliteTable, text } from "drizzle-orm/sqlite-core";

export const organizations = sqliteTable("organizations", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  /** JSON object of per-organization limit overrides (see src/limits/config.ts). */
  limits: text("limits", { mode: "json" }).$type<Record<string, number>>().notNull().default({}),
  createdAt: text("created_at").notNull(),
  /** The directory: the data shard (a D1 binding named in DATA_SHARDS) holding the org's rows. */
  shard: text("shard").notNull().default("SHARD_0"),
  /** While an operator moves the org (src/platform/org-move.ts): the target shard; writes answer 503. */
  movingTo: text("moving_to"),
});
