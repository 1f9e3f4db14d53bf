// Step sessions: node outputs cross the Durable Object boundary as plain JSON, a step
// that fails to complete leaves the session at the same node, and sessions are bound
// to their organization.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createPipeline, definition, edge, trigger } from "../support/pipelines";
import { createTenant, type Tenant } from "../support/tenants";

const t = (id: string, expression: string) => ({ id, type: "data.transform", config: { expression } });
type View = { session_id: string; status: string; current_node: string | null; step?: { node_id: string; status: string; outputs: unknown } };

async function open(tenant: Tenant, def: unknown, inputs: unknown = { n: 1 }) {
  const id = await createPipeline(tenant, def);
  const res = await tenant.fetch("/api/execute/step", { method: "POST", json: { pipeline_id: id, inputs } });
  expect(res.status).toBe(201);
  return (await res.json()) as View;
}
const step = (tenant: Tenant, session: string, json: unknown = {}) => tenant.fetch(`/api/execute/step/${session}`, { method: "POST", json });

describe("step sessions", () => {
  it("a transform yielding an object (and a JSONata sequence) steps and completes", async () => {
    const tenant = await createTenant();
    const def = definition([trigger(), t("obj", '{"name": "x", "items": [1, 2].($ * $$.n)}'), t("seq", "items")], [edge("start", "obj", "event"), edge("obj", "seq")]);
    const session = await open(tenant, def, { n: 3 });
    expect((await step(tenant, session.session_id)).status).toBe(200);
    const s2 = await step(tenant, session.session_id);
    expect(s2.status).toBe(200);
    expect((await s2.json()) as View).toMatchObject({ current_node: "seq", step: { node_id: "obj", outputs: { output: { name: "x", items: [3, 6] } } } });
    const s3 = await step(tenant, session.session_id);
    expect(s3.status).toBe(200);
    expect((await s3.json()) as View).toMatchObject({ status: "completed", step: { node_id: "seq", outputs: { output: [3, 6] } } });
  });

  it("a step whose result cannot be stored answers 4xx and leaves the session at the same node", async () => {
    const tenant = await createTenant();
    const session = await open(tenant, definition([trigger(), t("a", "n + 1"), t("b", "$ * 2")], [edge("start", "a", "event"), edge("a", "b")]));
    await step(tenant, session.session_id);
    // Supplied outputs beyond what a Durable Object can store (128 KiB per value).
    const huge = await step(tenant, session.session_id, { node_outputs: { output: "x".repeat(13_000_000) } });
    expect(huge.status).toBeGreaterThanOrEqual(400);
    expect(huge.status).toBeLessThan(500);
    const again = await step(tenant, session.session_id);
    expect(again.status).toBe(200);
    expect((await again.json()) as View).toMatchObject({ current_node: "b", step: { node_id: "a", outputs: { output: 2 } } });
  });

  it("org a with session x:y and org a:x with session y reach different sessions", async () => {
    const base = `a${crypto.randomUUID().slice(0, 8)}`;
    const a = await tenantWithId(base);
    const ax = await tenantWithId(`${base}:x`);
    const def = definition([trigger(), t("a", "n + 1")], [edge("start", "a", "event")]);
    // The session of org a:x, opened under the session id "y" its stub is named with.
    const victim = await open(ax, def, { n: 41 });
    // Org a asks for session "x:<victim id>": the old scheme built the same name.
    const cross = await step(a, `x:${victim.session_id}`);
    expect(cross.status).toBe(404);
  });
});

async function tenantWithId(id: string): Promise<Tenant> {
  const { OrganizationStore } = await import("../../src/features/tenancy/organizations");
  const { database } = await import("../../src/platform/db/client");
  const { createKey, authedFetch } = await import("../support/tenants");
  await new OrganizationStore(database(env.DB)).create({ id, name: id });
  const { key, keyId } = await createKey(id);
  return { orgId: id, key, keyId, fetch: authedFetch(id, key) };
}
