// D1 read replication (platform/db/session.ts): each request's shard queries run in one D1
// session, GETs may be served by a replica, and the bookmark a response carries, sent back,
// makes a later request read at least that new: a client reads its own writes.
import { createExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { buildApp } from "../../src/main/app";
import type { Env } from "../../src/platform/env";
import { type Tenant, createTenant } from "../support/tenants";

const app = buildApp();

/** The env with `t`'s shard recording the constraint or bookmark each session starts from. */
function recordingSessions(t: Tenant) {
  const real = (env as unknown as Record<string, D1Database>)[t.shard]!;
  const opened: (string | undefined)[] = [];
  const shard = {
    prepare: (q: string) => real.prepare(q),
    batch: (s: D1PreparedStatement[]) => real.batch(s),
    exec: (q: string) => real.exec(q),
    withSession: (constraint?: string) => {
      opened.push(constraint);
      return real.withSession(constraint);
    },
  } as unknown as D1Database;
  const fetch = async (path: string, init: RequestInit = {}) => {
    const headers = new Headers(init.headers);
    headers.set("authorization", `Bearer ${t.key}`);
    headers.set("x-organization-id", t.orgId);
    return app.fetch(new Request(`http://localhost${path}`, { ...init, headers }), { ...env, [t.shard]: shard } as Env, createExecutionContext());
  };
  return { opened, fetch };
}

describe("D1 sessions and bookmarks", () => {
  it("reads its own write with the bookmark the write returned", async () => {
    const t = await createTenant();
    const s = recordingSessions(t);
    const created = await s.fetch(`/fhir/r4/${t.orgId}/Patient`, {
      method: "POST",
      headers: { "content-type": "application/fhir+json" },
      body: JSON.stringify({ resourceType: "Patient", name: [{ family: "Bookmarked" }] }),
    });
    expect(created.status).toBe(201);
    const bookmark = created.headers.get("x-d1-bookmark")!;
    expect(bookmark).toMatch(new RegExp(`^${t.shard}:[0-9a-f-]+$`));
    const { id } = (await created.json()) as { id: string };
    const read = await s.fetch(`/fhir/r4/${t.orgId}/Patient/${id}`, { headers: { "x-d1-bookmark": bookmark } });
    expect(read.status).toBe(200);
    // The write ran on the primary; the read started from the write's bookmark, not from any copy.
    expect(s.opened).toEqual(["first-primary", bookmark.slice(t.shard.length + 1)]);
    // A bookmark never goes backwards.
    expect(read.headers.get("x-d1-bookmark")! >= bookmark).toBe(true);
  });

  it("lets reads without a bookmark go to any copy, and management reads too", async () => {
    const t = await createTenant();
    const s = recordingSessions(t);
    expect((await s.fetch(`/fhir/r4/${t.orgId}/Patient?name=x`)).status).toBe(200);
    expect((await s.fetch("/api/pipelines")).status).toBe(200);
    expect(s.opened).toEqual(["first-unconstrained", "first-unconstrained"]);
  });

  it("ignores a bookmark of another shard (the org moved) and refuses a malformed one", async () => {
    const t = await createTenant();
    const s = recordingSessions(t);
    expect((await s.fetch(`/fhir/r4/${t.orgId}/Patient`, { headers: { "x-d1-bookmark": "SHARD_9:00000000-00000001-00000000-00000000000000000000000000000000" } })).status).toBe(200);
    expect(s.opened).toEqual(["first-unconstrained"]);
    const bad = await s.fetch(`/fhir/r4/${t.orgId}/Patient`, { headers: { "x-d1-bookmark": `${t.shard}:not a bookmark` } });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ resourceType: "OperationOutcome" });
    const api = await s.fetch("/api/pipelines", { headers: { "x-d1-bookmark": "x;y" } });
    expect(api.status).toBe(400);
    expect(await api.json()).toMatchObject({ error: { code: "INVALID_BOOKMARK", status: 400 } });
  });

  it("a bookmark carries no data across organizations", async () => {
    const a = await createTenant();
    const b = await createTenant({ shard: a.shard });
    const created = await recordingSessions(a).fetch(`/fhir/r4/${a.orgId}/Patient`, {
      method: "POST",
      headers: { "content-type": "application/fhir+json" },
      body: JSON.stringify({ resourceType: "Patient" }),
    });
    const { id } = (await created.json()) as { id: string };
    const read = await recordingSessions(b).fetch(`/fhir/r4/${b.orgId}/Patient/${id}`, { headers: { "x-d1-bookmark": created.headers.get("x-d1-bookmark")! } });
    expect(read.status).toBe(404);
  });
});
