// A total costs a count (up to ~10,000 index rows read) only when the page does not hold every
// match: a first page with nothing behind it is its own total (search/execute.ts).
import { createExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { buildApp } from "../../src/main/app";
import type { Bundle } from "../../src/features/fhir/port";
import { countingD1 } from "../support/d1-counter";
import { createTenant } from "../support/tenants";
import { post } from "./support";

const app = buildApp();

describe("search totals", () => {
  it("counts only when more pages follow; the totals are the same either way", async () => {
    const t = await createTenant();
    for (let i = 0; i < 4; i++) await post(t, { resourceType: "Observation", status: "final", code: { coding: [{ system: "http://loinc.org", code: "8867-4" }] }, valueQuantity: { value: 60 + i } });
    const other = await createTenant();
    await post(other, { resourceType: "Observation", status: "final", code: { coding: [{ system: "http://loinc.org", code: "8867-4" }] } });
    const tripsOf = async (query: string) => {
      const shard = countingD1(env, t.shard);
      const res = await app.fetch(
        new Request(`http://localhost/fhir/r4/${t.orgId}/Observation?${query}`, { headers: { authorization: `Bearer ${t.key}`, "x-organization-id": t.orgId } }),
        shard.env,
        createExecutionContext(),
      );
      expect(res.status).toBe(200);
      return { trips: shard.count, bundle: (await res.json()) as Bundle };
    };
    for (const total of ["accurate", "estimate"]) {
      // Each query once before it is counted: the isolate's caches (the consent policy, the
      // plan's driver density) then hold, so the counts are the steady state.
      const whole = `code=8867-4&_total=${total}&_count=10`;
      const paged = `code=8867-4&_total=${total}&_count=2`;
      await tripsOf(whole);
      await tripsOf(paged);
      const a = await tripsOf(whole);
      const b = await tripsOf(paged);
      expect(a.bundle.total).toBe(4);
      expect(a.bundle.entry).toHaveLength(4);
      expect(b.bundle.total).toBe(4);
      expect(b.bundle.entry).toHaveLength(2);
      expect(b.trips).toBe(a.trips + 1);
    }
  });
});
