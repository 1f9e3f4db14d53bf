// The FHIR store's export reader (its port to the export feature): pages of NDJSON in (lastUpdated, id) order that
// cover every resource exactly once, whatever the page size, ties on lastUpdated included
// (a transaction gives all its resources one instant), and never another org's resources.
import { env } from "cloudflare:workers";
import { contextForOrg } from "../../src/main/context";
import { describe, expect, it } from "vitest";
import type { ExportQuery } from "../../src/features/export/source";
import { createTenant } from "../support/tenants";

async function load(t: Awaited<ReturnType<typeof createTenant>>, bundles: number, perBundle: number) {
  for (let b = 0; b < bundles; b++) {
    const entry = Array.from({ length: perBundle }, () => ({ resource: { resourceType: "Patient", gender: "other" }, request: { method: "POST", url: "Patient" } }));
    const res = await t.fetch(`/fhir/r4/${t.orgId}`, { method: "POST", json: { resourceType: "Bundle", type: "transaction", entry } });
    expect(res.status).toBe(200);
  }
}

async function readAll(orgId: string, limit: number): Promise<{ ids: string[]; pages: number[] }> {
  const source = (await contextForOrg(env, orgId)).fhir({ orgId, keyId: "export", keyName: "export", role: "admin", scopes: [] });
  const ids: string[] = [];
  const pages: number[] = [];
  let cursor: string | undefined;
  do {
    const q: ExportQuery = { type: "Patient", until: new Date(Date.now() + 1000).toISOString(), limit, ...(cursor ? { cursor } : {}) };
    const page = await source.exportPage(q);
    pages.push(page.lines.length);
    ids.push(...page.lines.map((l) => (JSON.parse(l) as { id: string }).id));
    cursor = page.cursor;
  } while (cursor);
  return { ids, pages };
}

describe("export source over the FHIR store", () => {
  it("pages through every resource once, in order, at any page size", async () => {
    const t = await createTenant();
    const other = await createTenant();
    await load(t, 3, 4);
    await load(other, 1, 5);
    const { ids: all } = await readAll(t.orgId, 100);
    expect(all).toHaveLength(12);
    expect(new Set(all).size).toBe(12);
    for (const limit of [1, 2, 3, 4, 5, 6, 11, 12, 13]) {
      const { ids, pages } = await readAll(t.orgId, limit);
      expect(ids).toEqual(all);
      // Full pages until the last, which is never empty.
      expect(pages.slice(0, -1).every((n) => n === limit)).toBe(true);
      expect(pages.at(-1)).toBe(12 % limit || limit);
    }
    expect((await readAll(other.orgId, 2)).ids).toHaveLength(5);
  });
});
