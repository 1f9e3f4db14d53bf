import { defineConfig } from "drizzle-kit";

// The data shards' tables (every org-owned row). The control database has its own set:
// drizzle.control.config.ts.
export default defineConfig({
  dialect: "sqlite",
  schema: "./src/main/tables.ts",
  out: "./migrations/data",
});
