// /api/api-keys: creation shows the secret once, lists never do, revocation, paging, tenancy.
import { describe, expect, it } from "vitest";
import { authedFetch, createTenant } from "../support/tenants";

interface KeyBody {
  id: string;
  key?: string;
  key_prefix: string;
  status: string;
  role: string;
  scopes: string[];
}

describe("API keys", () => {
  it("creates a key whose secret works and is shown only once", async () => {
    const t = await createTenant();
    const res = await t.fetch("/api/api-keys", { method: "POST", json: { name: "ingest", role: "service" } });
    expect(res.status).toBe(201);
    const created = (await res.json()) as KeyBody;
    expect(created.key).toMatch(/^cdis_[A-Za-z0-9_-]{43}$/);
    expect(created.key?.startsWith(created.key_prefix)).toBe(true);
    expect((await authedFetch(t.orgId, created.key!)("/api/organization")).status).toBe(200);

    const got = (await (await t.fetch(`/api/api-keys/${created.id}`)).json()) as KeyBody;
    expect(got.key).toBeUndefined();
    const listText = await (await t.fetch("/api/api-keys")).text();
    expect(listText).not.toContain(created.key);
    expect(listText).not.toContain("hash");
  });

  it("pages with limit, offset and total_count", async () => {
    const t = await createTenant();
    for (let i = 0; i < 4; i++) {
      await t.fetch("/api/api-keys", { method: "POST", json: { name: `k${i}`, role: "clinician" } });
    }
    const page = (await (await t.fetch("/api/api-keys?limit=2&offset=1")).json()) as { api_keys: KeyBody[]; total_count: number };
    expect(page.total_count).toBe(5);
    expect(page.api_keys).toHaveLength(2);
    const all = (await (await t.fetch("/api/api-keys")).json()) as { api_keys: KeyBody[] };
    expect(all.api_keys.slice(1, 3).map((k) => k.id)).toEqual(page.api_keys.map((k) => k.id));
    expect((await t.fetch("/api/api-keys?limit=101")).status).toBe(400);
    expect((await t.fetch("/api/api-keys?offset=-1")).status).toBe(400);
  });

  it("creates scoped keys and validates scopes", async () => {
    const t = await createTenant();
    const agentBody = { name: "a", agent_type: "custom", model_config: { model: "default", temperature: 0, max_tokens: 100 } };
    const agent = (await (await t.fetch("/api/agents", { method: "POST", json: agentBody })).json()) as { id: string };
    const ok = await t.fetch("/api/api-keys", {
      method: "POST",
      json: { name: "agent", role: "service", scopes: [`agent/${agent.id}:execute`] },
    });
    expect(ok.status).toBe(201);
    expect(((await ok.json()) as KeyBody).scopes).toEqual([`agent/${agent.id}:execute`]);

    // A scope naming an agent that does not exist in the org (here: none, or another org's) is refused.
    const other = await createTenant();
    const foreign = (await (await other.fetch("/api/agents", { method: "POST", json: agentBody })).json()) as { id: string };
    const missing = await t.fetch("/api/api-keys", {
      method: "POST",
      json: { name: "agent", role: "service", scopes: [`agent/${agent.id}:execute`, "agent/a1:execute", `agent/${foreign.id}:execute`] },
    });
    expect(missing.status).toBe(400);
    const refused = (await missing.json()) as { error: { code: string; message: string; details: { path: string }[] } };
    expect(refused.error.message).toContain(`a1, ${foreign.id}`);
    expect(refused.error.details.map((d) => d.path)).toEqual(["scopes.1", "scopes.2"]);
    const bad = await t.fetch("/api/api-keys", { method: "POST", json: { name: "x", role: "service", scopes: ["*"] } });
    expect(bad.status).toBe(400);
    const body = (await bad.json()) as { error: { code: string; details: { path: string }[] } };
    expect(body.error.code).toBe("VALIDATION_FAILED");
    expect(body.error.details[0]?.path).toBe("scopes.0");
  });

  it.each([
    [{ role: "admin" }, "name"],
    [{ name: "x", role: "superuser" }, "role"],
    [{ name: "", role: "admin" }, "name"],
    [{ name: "x", role: "admin", extra: 1 }, "(root)"],
  ])("rejects %j with a field-level error on %s", async (json, path) => {
    const t = await createTenant();
    const res = await t.fetch("/api/api-keys", { method: "POST", json });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: { code: string; details: { path: string }[] } };
    expect(body.error.code).toBe("VALIDATION_FAILED");
    expect(body.error.details.map((d) => d.path)).toContain(path);
  });

  it("revokes: status changes, revoking twice keeps the first time", async () => {
    const t = await createTenant();
    const { id } = (await (await t.fetch("/api/api-keys", { method: "POST", json: { name: "x", role: "service" } })).json()) as KeyBody;
    const first = (await (await t.fetch(`/api/api-keys/${id}`, { method: "DELETE" })).json()) as KeyBody & { revoked_at: string };
    expect(first.status).toBe("revoked");
    const second = (await (await t.fetch(`/api/api-keys/${id}`, { method: "DELETE" })).json()) as { revoked_at: string };
    expect(second.revoked_at).toBe(first.revoked_at);
  });

  it("never shows or revokes another organization's keys", async () => {
    const a = await createTenant();
    const b = await createTenant();
    const { id } = (await (await a.fetch("/api/api-keys", { method: "POST", json: { name: "x", role: "service" } })).json()) as KeyBody;
    expect((await b.fetch(`/api/api-keys/${id}`)).status).toBe(404);
    expect((await b.fetch(`/api/api-keys/${id}`, { method: "DELETE" })).status).toBe(404);
    const listed = (await (await b.fetch("/api/api-keys")).json()) as { api_keys: KeyBody[]; total_count: number };
    expect(listed.api_keys.map((k) => k.id)).not.toContain(id);
    expect(listed.total_count).toBe(1);
    expect(((await (await a.fetch(`/api/api-keys/${id}`)).json()) as KeyBody).status).toBe("active");
  });
});
