import { defineConfig } from "drizzle-kit";

// The control database: organizations, API keys, each org's shard.
export default defineConfig({
  dialect: "sqlite",
  schema: "./src/main/control-tables.ts",
  out: "./migrations/control",
});
