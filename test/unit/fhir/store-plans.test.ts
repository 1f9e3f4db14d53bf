// Query plans of the store's own lookups on the SQLite engine D1 runs: they must reach rows
// by key, never by scanning an organization's resources (which grow without bound).
import path from "node:path";
import { describe, expect, it } from "vitest";
import { SqliteD1 } from "../../../bench/fhir/d1-sqlite";
import { R4_DEFINITIONS } from "../../../src/features/fhir/definitions";
import { ResourceStore } from "../../../src/features/fhir/storage/resource-store";

describe("store lookups", () => {
  it("reads current versions by (type, id) through the primary key, keys as the outer loop", async () => {
    const d1 = new SqliteD1(":memory:");
    d1.applyMigrations(path.join(import.meta.dirname, "../../../migrations/data"));
    const store = new ResourceStore(d1 as unknown as D1Database, "org-a", R4_DEFINITIONS);
    await store.currents([
      { type: "Patient", id: "p1" },
      { type: "Observation", id: "o1" },
    ]);
    const { sql, args } = d1.log.at(-1)!;
    const plan = d1.explain(sql, args);
    expect(plan[0]).toMatch(/^SCAN k VIRTUAL TABLE/);
    expect(plan[1]).toMatch(/^SEARCH r USING INDEX sqlite_autoindex_fhir_resources_1 \(org_id=\? AND resource_type=\? AND id=\?\)/);
  });
});
