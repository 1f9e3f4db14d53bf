// The code.javascript node in pipelines, on the real FHIR store: the happy path with node logs,
// a syntax error refused at save with its place, a limit failing the node (and the service still
// answering), async executions, and org B's code never reaching org A's data with A's ids; and
// code-backed custom tools (/api/tools, kind code) invoked directly and through the agents' seam.
import { describe, expect, it } from "vitest";
import { createPipeline, definition, driveExecution, edge, run, trigger } from "../support/pipelines";
import type { Principal } from "../../src/features/tenancy/auth/permissions";
import { createTenant, type Tenant } from "../support/tenants";

type Extra = { limits?: Record<string, number>; secrets?: { connector_id: string; names: string[] } };
const code = (source: string, extra: Extra = {}) => ({ id: "js", type: "code.javascript", config: { code: source, ...extra } });
const pipeline = (source: string, limits?: Record<string, number>, extra: Extra = {}) => definition([trigger(), code(source, { ...(limits ? { limits } : {}), ...extra })], [edge("start", "js", "event")]);

async function connector(t: Tenant, credentials: Record<string, string>): Promise<string> {
  const res = await t.fetch("/api/connectors", { method: "POST", json: { name: "api", type: "http", endpoint: "https://api.example.org", auth: { kind: "header", header_name: "x-api-key" }, credentials } });
  expect(res.status).toBe(201);
  return ((await res.json()) as { id: string }).id;
}

async function patient(t: Tenant, family: string): Promise<string> {
  const res = await t.fetch(`/fhir/r4/${t.orgId}/Patient`, { method: "POST", headers: { "content-type": "application/fhir+json" }, body: JSON.stringify({ resourceType: "Patient", name: [{ family, given: ["Ada"] }] }) });
  expect(res.status).toBe(201);
  return ((await res.json()) as { id: string }).id;
}

const READ = `export default async function (input, ctx) {
  const p = await ctx.fhir.read("Patient", input.id);
  ctx.log("read", p.resourceType, p.id);
  return { id: p.id, display: p.name[0].given[0] + " " + p.name[0].family.toUpperCase() };
}`;

describe("code.javascript node", () => {
  it("reads a Patient and returns a transformed object, its logs in the node's execution logs; async too", async () => {
    const t = await createTenant();
    const id = await patient(t, "Lovelace");
    const pid = await createPipeline(t, pipeline(READ));
    const { res, body } = await run(t, pid, { id });
    expect(res.status).toBe(200);
    expect(body).toMatchObject({ status: "completed", outputs: { js: { output: { id, display: "Ada LOVELACE" } } } });
    const record = (await (await t.fetch(`/api/executions/${body.execution_id}`)).json()) as { nodes: Record<string, { logs: { level: string; message: string }[] }> };
    expect(record.nodes.js?.logs).toEqual(expect.arrayContaining([expect.objectContaining({ level: "info", message: `read Patient ${id}` })]));
    const started = await run(t, pid, { id }, { async: true });
    expect(await driveExecution(t, started.body.execution_id)).toMatchObject({ status: "completed", outputs: { js: { output: { display: "Ada LOVELACE" } } } });
  });

  it("a syntax error is refused at save with its line and column; limits above the cap too", async () => {
    const t = await createTenant();
    const res = await t.fetch("/api/pipelines", { method: "POST", json: { name: "bad", description: "", definition: pipeline("export default function (input) {\n  return input +;\n}") } });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: { code: string; details: { path: string; message: string }[] } };
    expect(body.error.code).toBe("VALIDATION_FAILED");
    expect(body.error.details).toEqual([expect.objectContaining({ path: "nodes.js.config.code", message: expect.stringMatching(/line 2, column \d+/) })]);
    const capped = await t.fetch("/api/pipelines", { method: "POST", json: { name: "big", description: "", definition: pipeline("export default () => 1", { cpuMs: 60_000 }) } });
    expect(capped.status).toBe(400);
  });

  it("a limit or a throw fails the node with its code (and line), and the service keeps answering", async () => {
    const t = await createTenant();
    const loop = await createPipeline(t, pipeline("export default function () { while (true) {} }"));
    expect((await run(t, loop)).body).toMatchObject({ status: "failed", error: { code: "CODE_TIMEOUT", node_id: "js", node_type: "code.javascript" } });
    const fetches = await createPipeline(t, pipeline("export default async function (i, ctx) { while (true) { try { await ctx.fetch('http://127.0.0.2/') } catch {} } }"));
    expect((await run(t, fetches)).body).toMatchObject({ status: "failed", error: { code: "CODE_LIMIT" } });
    const thrower = await createPipeline(t, pipeline("export default function () {\n  throw new Error('nope');\n}"));
    const thrown = await run(t, thrower);
    expect(thrown.body).toMatchObject({ status: "failed", error: { code: "CODE_ERROR", message: "nope" } });
    expect((await t.fetch("/health")).status).toBe(200);
    expect((await run(t, await createPipeline(t, pipeline("export default (i) => ({ twice: i.n * 2 })")), { n: 4 })).body).toMatchObject({ status: "completed", outputs: { js: { output: { twice: 8 } } } });
  });

  it("ctx.secrets holds the named credentials of the org's connector, by reference, masked in logs and errors; never another org's", async () => {
    const a = await createTenant();
    const b = await createTenant();
    const aConn = await connector(a, { value: "a-key-123456", signing_key: "a-sign-987654" });
    const SHOW = `export default (input, ctx) => {
  ctx.log("key is", ctx.secrets.value);
  if (input.fail) throw new Error("bad " + ctx.secrets.value);
  return { keys: Object.keys(ctx.secrets), len: ctx.secrets.value.length, frozen: Object.isFrozen(ctx.secrets), sign: ctx.secrets.signing_key ?? null };
}`;
    const def = pipeline(SHOW, undefined, { secrets: { connector_id: aConn, names: ["value"] } });
    const pid = await createPipeline(a, def);
    const saved = await (await a.fetch(`/api/pipelines/${pid}`)).text();
    expect(saved).not.toContain("a-key-123456");
    const ok = await run(a, pid);
    expect(ok.body).toMatchObject({ status: "completed", outputs: { js: { output: { keys: ["value"], len: 12, frozen: true, sign: null } } } });
    const record = await (await a.fetch(`/api/executions/${ok.body.execution_id}`)).text();
    expect(record).toContain("key is [secret]");
    expect(record).not.toContain("a-key-123456");
    const failed = await run(a, pid, { fail: true });
    expect(failed.body).toMatchObject({ status: "failed", error: { code: "CODE_ERROR", message: "bad [secret]" } });
    const missing = await run(a, await createPipeline(a, pipeline(SHOW, undefined, { secrets: { connector_id: aConn, names: ["value", "nope"] } })));
    expect(missing.body).toMatchObject({ status: "failed", error: { code: "CONNECTOR_SECRET_NOT_FOUND" } });
    // Org B naming A's connector id: not found, and nothing of A's reaches B's run.
    const bRun = await run(b, await createPipeline(b, def));
    expect(bRun.body).toMatchObject({ status: "failed", error: { code: "CONNECTOR_NOT_FOUND", node_id: "js" } });
    expect(JSON.stringify(bRun.body)).not.toContain("a-key");
    const noSecrets = await run(b, await createPipeline(b, pipeline("export default (i, ctx) => ({ secrets: ctx.secrets })")));
    expect(noSecrets.body).toMatchObject({ status: "completed", outputs: { js: { output: { secrets: {} } } } });
  });

  it("runs of one code version reuse its loaded isolate (module state lives on); a new pipeline version with new code loads its own", async () => {
    const t = await createTenant();
    const counter = (tag: string) => `let runs = 0;\nexport default () => ({ tag: "${tag}", runs: ++runs });`;
    const pid = await createPipeline(t, pipeline(counter("v1")));
    expect((await run(t, pid)).body).toMatchObject({ status: "completed", outputs: { js: { output: { tag: "v1", runs: 1 } } } });
    expect((await run(t, pid)).body).toMatchObject({ outputs: { js: { output: { tag: "v1", runs: 2 } } } });
    const put = await t.fetch(`/api/pipelines/${pid}`, { method: "PUT", json: { name: "p", description: "", definition: pipeline(counter("v2")) } });
    expect(put.status).toBe(200);
    expect((await t.fetch(`/api/pipelines/${pid}/deploy`, { method: "POST" })).status).toBe(200);
    expect((await run(t, pid)).body).toMatchObject({ outputs: { js: { output: { tag: "v2", runs: 1 } } } });
    expect((await run(t, pid)).body).toMatchObject({ outputs: { js: { output: { tag: "v2", runs: 2 } } } });
    // The same code in another organization's pipeline: its own isolate.
    const other = await createTenant();
    expect((await run(other, await createPipeline(other, pipeline(counter("v2"))))).body).toMatchObject({ outputs: { js: { output: { tag: "v2", runs: 1 } } } });
  });

  it("org B's code cannot read org A's Patient with A's id, nor pollute what A's runs see", async () => {
    const a = await createTenant();
    const b = await createTenant();
    const id = await patient(a, "Secret");
    const bRead = await createPipeline(b, pipeline(`Object.prototype.leaked = "B";\n${READ}`));
    const bRun = await run(b, bRead, { id });
    expect(bRun.body).toMatchObject({ status: "failed", error: { code: "CODE_ERROR" } });
    expect(JSON.stringify(bRun.body)).not.toContain("Secret");
    const bSearch = await createPipeline(b, pipeline(`export default async (input, ctx) => (await ctx.fhir.search("Patient", "_id=" + input.id)).total ?? (await ctx.fhir.search("Patient", "_id=" + input.id)).entry?.length ?? 0`));
    expect((await run(b, bSearch, { id })).body).toMatchObject({ status: "completed", outputs: { js: { output: 0 } } });
    const aRead = await createPipeline(a, pipeline(`export default async (input, ctx) => ({ leaked: ({}).leaked ?? null, family: (await ctx.fhir.read("Patient", input.id)).name[0].family })`));
    expect((await run(a, aRead, { id })).body).toMatchObject({ status: "completed", outputs: { js: { output: { leaked: null, family: "Secret" } } } });
  });
});

const principalOf = (t: Tenant): Principal => ({ orgId: t.orgId, keyId: t.keyId, keyName: "admin key", role: "admin", scopes: [] });
const params = { type: "object", properties: { id: { type: "string" }, fail: { type: "boolean" } }, required: ["id"] };

async function codeTool(t: Tenant, source: string, extra: Extra = {}, name = "lookup") {
  return t.fetch("/api/tools", { method: "POST", json: { name, description: "Looks a patient up", parameters: params, implementation: { kind: "code", code: source, ...extra } } });
}

async function invoke(t: Tenant, toolId: string, args: Record<string, unknown>) {
  const res = await t.fetch(`/api/tools/${toolId}/invoke`, { method: "POST", json: { arguments: args } });
  return { status: res.status, body: (await res.json()) as { ok: boolean; result: unknown; logs?: string[]; error?: { code: string } } };
}

describe("code-backed custom tools", () => {
  it("a code tool reads the store as its caller, logs, fails with the node's codes; an agent calls it by name", async () => {
    const t = await createTenant();
    const id = await patient(t, "Lovelace");
    const created = await codeTool(t, READ);
    expect(created.status).toBe(201);
    const tool = (await created.json()) as { id: string; implementation: { kind: string } };
    expect(tool.implementation.kind).toBe("code");
    expect(await invoke(t, tool.id, { id })).toEqual({ status: 200, body: { ok: true, result: { id, display: "Ada LOVELACE" }, logs: [`read Patient ${id}`] } });
    // Arguments are checked against the tool's parameters before any code runs.
    expect((await invoke(t, tool.id, { id: 5 })).status).toBe(400);
    // The agents' seam: what an agent's tool call runs.
    const asAgent = t.ctx.agents(principalOf(t));
    expect(await (await asAgent.customTool("lookup"))!.execute({ id })).toEqual({ id, display: "Ada LOVELACE" });
    const loop = (await (await codeTool(t, "export default function () { while (true) {} }", {}, "loop")).json()) as { id: string };
    expect(await invoke(t, loop.id, { id })).toMatchObject({ status: 200, body: { ok: false, result: { code: "CODE_TIMEOUT" } } });
    await expect((await asAgent.customTool("loop"))!.execute({ id })).rejects.toThrow(/CODE_TIMEOUT/);
    const thrower = (await (await codeTool(t, "export default function () {\n  throw new Error('nope');\n}", {}, "thrower")).json()) as { id: string };
    expect(await invoke(t, thrower.id, { id })).toMatchObject({ body: { ok: false, result: { code: "CODE_ERROR", message: "nope", line: 2 } } });
    // A syntax error is refused at save, with its place.
    const bad = await codeTool(t, "export default function (input) {\n  return input +;\n}", {}, "bad");
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { details: { path: string; message: string }[] } }).error.details).toEqual([expect.objectContaining({ path: "implementation.code", message: expect.stringMatching(/line 2, column \d+/) })]);
  });

  it("ctx.secrets by reference, masked in logs and errors; org B cannot name A's connector nor read A's Patient with A's id", async () => {
    const a = await createTenant();
    const b = await createTenant();
    const aConn = await connector(a, { value: "a-key-123456" });
    const id = await patient(a, "Secret");
    const SHOW = `export default (input, ctx) => {
  ctx.log("key is", ctx.secrets.value);
  if (input.fail) throw new Error("bad " + ctx.secrets.value);
  return { len: ctx.secrets.value.length };
}`;
    const secrets = { secrets: { connector_id: aConn, names: ["value"] } };
    const tool = (await (await codeTool(a, SHOW, secrets)).json()) as { id: string };
    expect(await (await a.fetch(`/api/tools/${tool.id}`)).text()).not.toContain("a-key-123456");
    expect(await invoke(a, tool.id, { id })).toEqual({ status: 200, body: { ok: true, result: { len: 12 }, logs: ["key is [secret]"] } });
    const failed = await invoke(a, tool.id, { id, fail: true });
    expect(failed.body).toMatchObject({ ok: false, result: { code: "CODE_ERROR", message: "bad [secret]" } });
    expect(JSON.stringify(failed.body)).not.toContain("a-key-123456");
    // B: A's connector id is refused at save; A's tool id is not found; A's Patient is not found.
    const named = await codeTool(b, SHOW, secrets);
    expect(named.status).toBe(400);
    expect(await named.text()).toContain("implementation.secrets.connector_id");
    expect((await b.fetch(`/api/tools/${tool.id}/invoke`, { method: "POST", json: { arguments: { id } } })).status).toBe(404);
    const bTool = (await (await codeTool(b, READ)).json()) as { id: string };
    const bRead = await invoke(b, bTool.id, { id });
    expect(bRead.body).toMatchObject({ ok: false, result: { code: "CODE_ERROR" } });
    expect(JSON.stringify(bRead.body)).not.toContain("Secret");
  });
});
