// An update by id plans on the version this isolate last read or wrote (storage/seen-versions.ts):
// one D1 round trip instead of two. The entry is only a guess: a version written meanwhile by
// another isolate (here: the store itself, which the service's memory does not see) makes the
// commit collide, and the update is planned again on a fresh read; If-Match is judged on the
// database's current version, never on the remembered one.
import { createExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { buildApp } from "../../src/main/app";
import type { Resource } from "../../src/features/fhir/port";
import { definitionsOf } from "../../src/features/fhir/extensions";
import { ResourceStore } from "../../src/features/fhir/storage/resource-store";
import { FHIR_EXTENSIONS } from "../../src/main/catalogs";
import type { Env } from "../../src/platform/env";
import { countingD1 } from "../support/d1-counter";
import { type Tenant, createTenant } from "../support/tenants";
import { ids, post, put } from "./support";

const app = buildApp();

/** A PUT through the app on an env whose shard counts round trips. */
async function countedPut(t: Tenant, resource: Resource & { id: string }, headers: Record<string, string> = {}) {
  const shard = countingD1(env, t.shard);
  const res = await app.fetch(
    new Request(`http://localhost/fhir/r4/${t.orgId}/${resource.resourceType}/${resource.id}`, {
      method: "PUT",
      headers: { authorization: `Bearer ${t.key}`, "x-organization-id": t.orgId, "content-type": "application/fhir+json", ...headers },
      body: JSON.stringify(resource),
    }),
    shard.env,
    createExecutionContext(),
  );
  return { res, trips: shard.count };
}

/** Writes a version behind the service's back, as another isolate would. */
async function writeElsewhere(t: Tenant, resource: Resource & { id: string }, versionId: number) {
  const store = new ResourceStore((env as unknown as Record<string, D1Database>)[t.shard]!, t.orgId, definitionsOf(FHIR_EXTENSIONS));
  const lastUpdated = new Date().toISOString();
  const stored = { ...resource, meta: { versionId: String(versionId), lastUpdated } };
  await (env as Env & Record<string, D1Database>)[t.shard]!.batch(store.writeStatements([{ kind: "put", resource: stored, versionId, lastUpdated, method: "PUT" }]));
}

const versionOf = async (res: Response) => ((await res.json()) as Resource).meta?.versionId;

describe("update by id after this isolate saw the resource", () => {
  it("takes one D1 round trip, and the stored version and index are those of a read-first update", async () => {
    const t = await createTenant();
    const p = await post(t, { resourceType: "Patient", name: [{ family: "Before" }] });
    const { res, trips } = await countedPut(t, { resourceType: "Patient", id: p.id, name: [{ family: "Aftermath" }] });
    expect(res.status).toBe(200);
    expect(await versionOf(res)).toBe("2");
    expect(trips).toBe(1);
    expect(await ids(t, "Patient?name=Aftermath")).toEqual([p.id]);
    expect(await ids(t, "Patient?name=Before")).toEqual([]);
    const history = await (await t.fetch(`/fhir/r4/${t.orgId}/Patient/${p.id}/_history`)).json<{ entry: { resource: Resource }[] }>();
    expect(history.entry.map((e) => e.resource.meta?.versionId)).toEqual(["2", "1"]);
  });

  it("a version written elsewhere meanwhile: the update collides, reads and succeeds on top of it", async () => {
    const t = await createTenant();
    const p = await post(t, { resourceType: "Patient", name: [{ family: "One" }] });
    await writeElsewhere(t, { resourceType: "Patient", id: p.id, name: [{ family: "Elsewhere" }], gender: "male" }, 2);
    const { res, trips } = await countedPut(t, { resourceType: "Patient", id: p.id, name: [{ family: "Three" }] });
    expect(res.status).toBe(200);
    expect(await versionOf(res)).toBe("3");
    // The planned batch, the fresh read, the batch again.
    expect(trips).toBe(3);
    // The index diff was taken against version 2 (gender male dropped), not the remembered version 1.
    expect(await ids(t, "Patient?gender=male")).toEqual([]);
    expect(await ids(t, "Patient?name=Elsewhere")).toEqual([]);
    expect(await ids(t, "Patient?name=Three")).toEqual([p.id]);
    // Now remembered as version 3: one round trip again.
    expect((await countedPut(t, { resourceType: "Patient", id: p.id, name: [{ family: "Four" }] })).trips).toBe(1);
  });

  it("If-Match is judged on the database's version: the remembered one neither admits nor refuses", async () => {
    const t = await createTenant();
    const p = await post(t, { resourceType: "Patient", name: [{ family: "One" }] });
    await writeElsewhere(t, { resourceType: "Patient", id: p.id, name: [{ family: "Two" }] }, 2);
    // Remembered version 1, current 2: If-Match 1 fails, If-Match 2 succeeds.
    const stale = await countedPut(t, { resourceType: "Patient", id: p.id, name: [{ family: "Stale" }] }, { "if-match": 'W/"1"' });
    expect(stale.res.status).toBe(412);
    const fresh = await countedPut(t, { resourceType: "Patient", id: p.id, name: [{ family: "Fresh" }] }, { "if-match": 'W/"2"' });
    expect(fresh.res.status).toBe(200);
    expect(await versionOf(fresh.res)).toBe("3");
  });

  it("a resource deleted elsewhere is created again, not updated on the remembered version", async () => {
    const t = await createTenant();
    const p = await post(t, { resourceType: "Patient", name: [{ family: "One" }] });
    const store = new ResourceStore((env as unknown as Record<string, D1Database>)[t.shard]!, t.orgId, definitionsOf(FHIR_EXTENSIONS));
    await (env as unknown as Record<string, D1Database>)[t.shard]!.batch(
      store.writeStatements([{ kind: "delete", type: "Patient", id: p.id, versionId: 2, lastUpdated: new Date().toISOString() }]),
    );
    const { res } = await countedPut(t, { resourceType: "Patient", id: p.id, name: [{ family: "Again" }] });
    expect(res.status).toBe(201);
    expect(await versionOf(res)).toBe("3");
    expect(await ids(t, "Patient?name=Again")).toEqual([p.id]);
  });

  it("never plans on another organization's version of the same id", async () => {
    const a = await createTenant();
    const b = await createTenant();
    const shared = `same-${crypto.randomUUID()}`;
    await put(a, { resourceType: "Patient", id: shared, name: [{ family: "OrgA" }] });
    await put(a, { resourceType: "Patient", id: shared, name: [{ family: "OrgA2" }] });
    // B has no such Patient: its PUT creates version 1, whatever A's isolate remembers.
    const { res } = await countedPut(b, { resourceType: "Patient", id: shared, name: [{ family: "OrgB" }] });
    expect(res.status).toBe(201);
    expect(await versionOf(res)).toBe("1");
    expect(await ids(b, "Patient?name=OrgA")).toEqual([]);
    expect(await ids(a, "Patient?name=OrgA2")).toEqual([shared]);
    expect(await ids(a, "Patient?name=OrgB")).toEqual([]);
  });
});
