// /api/agents: CRUD, filters, templates, deploy state, versions and restore,
// tool assignment, public invocation with scopes, and tenancy.
import { beforeAll, describe, expect, it } from "vitest";
import { fakeOrg, giveModel, installAgentFakes } from "../support/agent-fakes";
import { lastOf } from "../support/fake-openai";
import { authedFetch, createKey, createTenant, type Tenant } from "../support/tenants";

beforeAll(installAgentFakes);

interface Agent {
  id: string;
  name: string;
  agent_type: string;
  status: string;
  deployed: boolean;
  version: number;
  tools: string[];
  model_config: { model: string; temperature: number };
}

const mk = async (t: Tenant, json: Record<string, unknown>) => {
  const res = await t.fetch("/api/agents", { method: "POST", json });
  expect(res.status).toBe(201);
  return (await res.json()) as Agent;
};
const base = { model_config: { model: "default", temperature: 0.1, max_tokens: 200 } };

describe("agents", () => {
  it("lists base templates per type", async () => {
    const t = await createTenant();
    const all = (await (await t.fetch("/api/agents?base_templates=true")).json()) as { agents: (Agent & { is_template: boolean })[]; total_count: number };
    expect(all.total_count).toBe(6);
    expect(all.agents.every((a) => a.is_template)).toBe(true);
    const triage = (await (await t.fetch("/api/agents?base_templates=true&type=triage")).json()) as { agents: Agent[] };
    expect(triage.agents.map((a) => a.agent_type)).toEqual(["triage"]);
    const fromTemplate = await mk(t, { template_id: "template-summarizer", name: "Mine" });
    expect(fromTemplate).toMatchObject({ name: "Mine", agent_type: "summarizer", tools: ["patient_summary", "fhir_search"] });
  });

  it("creates, filters, pages, updates and deletes", async () => {
    const t = await createTenant();
    const a = await mk(t, { name: "a", agent_type: "triage", project_id: "p1", ...base });
    await mk(t, { name: "b", agent_type: "classifier", ...base });
    await mk(t, { name: "c", agent_type: "triage", ...base });
    await t.fetch(`/api/agents/${a.id}`, { method: "PUT", json: { status: "inactive", name: "a2" } });
    const q = async (s: string) => (await (await t.fetch(`/api/agents?${s}`)).json()) as { agents: Agent[]; total_count: number };
    expect((await q("type=triage")).agents.map((x) => x.name).sort()).toEqual(["a2", "c"]);
    expect((await q("is_active=false")).agents.map((x) => x.name)).toEqual(["a2"]);
    expect((await q("is_active=true")).total_count).toBe(2);
    expect((await q("project_id=p1")).agents.map((x) => x.name)).toEqual(["a2"]);
    const page = await q("limit=1&offset=1");
    expect(page).toMatchObject({ total_count: 3 });
    expect(page.agents).toHaveLength(1);
    expect((await t.fetch("/api/agents", { method: "POST", json: { name: "x", agent_type: "nope", ...base } })).status).toBe(400);
    const noInput = await t.fetch("/api/agents", { method: "POST", json: { name: "x", agent_type: "custom", prompt_template: "no placeholder", ...base } });
    expect(noInput.status).toBe(400);
    expect((await t.fetch(`/api/agents/${a.id}`, { method: "DELETE" })).status).toBe(204);
    expect((await t.fetch(`/api/agents/${a.id}`)).status).toBe(404);
  });

  it("deploys and undeploys; only deployed agents can be invoked or deleted-guarded", async () => {
    const t = await createTenant();
    giveModel(t.orgId, (req) => ({ content: `got ${lastOf(req, "user")}` }));
    const a = await mk(t, { name: "inv", agent_type: "custom", prompt_template: "Input: {{input}}", ...base });
    const invoke = (f: Tenant["fetch"]) => f(`/api/v1/agents/${a.id}/invoke`, { method: "POST", json: { input_data: { input: "hello" } } });
    const before = await invoke(t.fetch);
    expect(before.status).toBe(409);
    expect(((await before.json()) as { error: { code: string } }).error.code).toBe("AGENT_NOT_DEPLOYED");
    expect(((await (await t.fetch(`/api/agents/${a.id}/deploy`, { method: "POST" })).json()) as Agent).deployed).toBe(true);
    expect((await t.fetch(`/api/agents/${a.id}`, { method: "DELETE" })).status).toBe(409);

    const scoped = authedFetch(t.orgId, (await createKey(t.orgId, "service", [`agent/${a.id}:execute`])).key);
    const other = authedFetch(t.orgId, (await createKey(t.orgId, "service", ["agent/someone-else:execute"])).key);
    const ok = await invoke(scoped);
    expect(ok.status).toBe(200);
    expect(await ok.json()).toMatchObject({ agent_id: a.id, output: "got Input: hello", response: "got Input: hello" });
    expect((await invoke(other)).status).toBe(403);
    // A key scoped to the agent can do nothing else.
    expect((await scoped(`/api/agents/${a.id}`)).status).toBe(403);
    expect((await scoped(`/api/agents/${a.id}/chat`, { method: "POST", json: { message: "x" } })).status).toBe(403);
    // Another org's admin cannot invoke it.
    const b = await createTenant();
    expect((await invoke(b.fetch)).status).toBe(404);

    await t.fetch(`/api/agents/${a.id}/undeploy`, { method: "POST" });
    expect((await invoke(scoped)).status).toBe(409);
  });

  it("snapshots versions and restores one", async () => {
    const t = await createTenant();
    const a = await mk(t, { name: "v", agent_type: "custom", ...base });
    const v1 = await t.fetch(`/api/agents/${a.id}/versions`, { method: "POST", json: { note: "first" } });
    expect(v1.status).toBe(201);
    expect(await v1.json()).toMatchObject({ version: 1, note: "first", snapshot: { name: "v" } });
    await t.fetch(`/api/agents/${a.id}`, { method: "PUT", json: { name: "changed", model_config: { model: "default", temperature: 1.5, max_tokens: 10 } } });
    await t.fetch(`/api/agents/${a.id}/versions`, { method: "POST" });
    const list = (await (await t.fetch(`/api/agents/${a.id}/versions`)).json()) as { versions: { version: number }[]; total_count: number };
    expect(list.versions.map((v) => v.version)).toEqual([2, 1]);
    const restored = (await (await t.fetch(`/api/agents/${a.id}/versions/1/restore`, { method: "POST" })).json()) as Agent;
    expect(restored).toMatchObject({ name: "v", version: 2, model_config: { temperature: 0.1 } });
    expect((await t.fetch(`/api/agents/${a.id}/versions/9/restore`, { method: "POST" })).status).toBe(404);
  });

  it("assigns and removes tools, built-in and custom", async () => {
    const t = await createTenant();
    fakeOrg(t.orgId).customTools.push({
      id: "tool-1",
      name: "bed_count",
      description: "Free beds",
      parameters: { type: "object", properties: {} },
      execute: async () => ({ free: 3 }),
    });
    const a = await mk(t, { name: "tools", agent_type: "custom", ...base });
    const assign = (tool: string) => t.fetch(`/api/agents/${a.id}/tools`, { method: "POST", json: { tool } });
    expect((await assign("fhir_read")).status).toBe(200);
    expect((await assign("tool-1")).status).toBe(200);
    const unknown = await assign("no_such_tool");
    expect(unknown.status).toBe(400);
    expect(((await unknown.json()) as { error: { message: string } }).error.message).toContain("no_such_tool");
    expect((await assign("vitals_query")).status).toBe(404); // no devices module in this org
    const list = (await (await t.fetch(`/api/agents/${a.id}/tools`)).json()) as { tools: { name: string; kind: string }[] };
    expect(list.tools.map((x) => [x.name, x.kind])).toEqual([["fhir_read", "built-in"], ["bed_count", "custom"]]);
    expect((await t.fetch(`/api/agents/${a.id}/tools/tool-1`, { method: "DELETE" })).status).toBe(204);
    expect((await t.fetch(`/api/agents/${a.id}/tools/bed_count`, { method: "DELETE" })).status).toBe(404);
    expect(((await (await t.fetch(`/api/agents/${a.id}`)).json()) as Agent).tools).toEqual(["fhir_read"]);
  });

  it("refuses tool names that exist nowhere, naming them, on create and update", async () => {
    const t = await createTenant();
    fakeOrg(t.orgId).customTools.push({ id: "tool-9", name: "ward_list", description: "Wards", parameters: { type: "object", properties: {} }, execute: async () => [] });
    const create = await t.fetch("/api/agents", { method: "POST", json: { name: "x", agent_type: "custom", ...base, tools: ["fhir_read", "nope", "ward_list", "gone"] } });
    expect(create.status).toBe(400);
    const err = ((await create.json()) as { error: { code: string; message: string; details: { path: string }[] } }).error;
    expect(err.message).toContain("nope, gone");
    expect(err.details.map((d) => d.path)).toEqual(["tools.1", "tools.3"]);
    expect(((await (await t.fetch("/api/agents")).json()) as { total_count: number }).total_count).toBe(0);

    // Custom tools by name or id (stored by name), and built-in tools, are accepted.
    const a = await mk(t, { name: "ok", agent_type: "custom", ...base, tools: ["fhir_read", "tool-9"] });
    expect(a.tools).toEqual(["fhir_read", "ward_list"]);
    const put = await t.fetch(`/api/agents/${a.id}`, { method: "PUT", json: { tools: ["fhir_search", "nope"] } });
    expect(put.status).toBe(400);
    expect(((await put.json()) as { error: { message: string } }).error.message).toContain("nope");
    expect(((await (await t.fetch(`/api/agents/${a.id}`)).json()) as Agent).tools).toEqual(["fhir_read", "ward_list"]);

    // Another organization's custom tool does not exist for this one.
    const other = await createTenant();
    const foreign = await other.fetch("/api/agents", { method: "POST", json: { name: "x", agent_type: "custom", ...base, tools: ["ward_list"] } });
    expect(foreign.status).toBe(400);
  });

  it("keeps agents to their organization and to their permissions", async () => {
    const a = await createTenant();
    const b = await createTenant();
    const agent = await mk(a, { name: "private", agent_type: "custom", ...base });
    expect((await b.fetch(`/api/agents/${agent.id}`)).status).toBe(404);
    expect((await b.fetch(`/api/agents/${agent.id}`, { method: "PUT", json: { name: "x" } })).status).toBe(404);
    expect((await b.fetch(`/api/agents/${agent.id}/deploy`, { method: "POST" })).status).toBe(404);
    expect((await b.fetch(`/api/agents/${agent.id}/versions`, { method: "POST" })).status).toBe(404);
    expect((await b.fetch(`/api/agents/${agent.id}/tools`)).status).toBe(404);
    expect(((await (await b.fetch("/api/agents")).json()) as { total_count: number }).total_count).toBe(0);
    const clinician = authedFetch(a.orgId, (await createKey(a.orgId, "clinician")).key);
    expect((await clinician(`/api/agents/${agent.id}`)).status).toBe(200);
    expect((await clinician("/api/agents", { method: "POST", json: { name: "x", agent_type: "custom", ...base } })).status).toBe(403);
  });
});
