// Pipeline management: CRUD, kept versions, deploy/undeploy per spec 3.1,
// definition validation errors, and tenant isolation.
import { describe, expect, it } from "vitest";
import { definition, edge, trigger } from "../support/pipelines";
import { createTenant } from "../support/tenants";

const linear = definition(
  [trigger(), { id: "t", type: "data.transform", config: { expression: "{'x': a}" } }],
  [edge("start", "t", "event")],
);

type Problem = { path: string; message: string };
async function problems(res: Response): Promise<Problem[]> {
  expect(res.status).toBe(400);
  const body = (await res.json()) as { error: { code: string; details: Problem[] } };
  expect(body.error.code).toBe("VALIDATION_FAILED");
  return body.error.details;
}

describe("pipeline management", () => {
  it("creates, lists with paging, reads, updates with versions, deletes", async () => {
    const t = await createTenant();
    const created = await t.fetch("/api/pipelines", { method: "POST", json: { name: "A", description: "d", definition: linear } });
    expect(created.status).toBe(201);
    const p = (await created.json()) as { id: string; status: string; version: number; definition: unknown };
    expect(p).toMatchObject({ status: "active", version: 1 });
    await t.fetch("/api/pipelines", { method: "POST", json: { name: "B", definition: linear } });

    const page = (await (await t.fetch("/api/pipelines?limit=1&offset=1")).json()) as { pipelines: { name: string }[]; total_count: number };
    expect(page.total_count).toBe(2);
    expect(page.pipelines).toHaveLength(1);
    expect(page.pipelines[0]?.name).toBe("A");

    // Renaming keeps the version; changing the definition makes a new one.
    const renamed = (await (await t.fetch(`/api/pipelines/${p.id}`, { method: "PUT", json: { name: "A2", definition: linear } })).json()) as { version: number };
    expect(renamed.version).toBe(1);
    const changed = definition([trigger(), { id: "t", type: "data.transform", config: { expression: "a" } }], [edge("start", "t", "event")]);
    const v2 = (await (await t.fetch(`/api/pipelines/${p.id}`, { method: "PUT", json: { name: "A2", definition: changed } })).json()) as { version: number };
    expect(v2.version).toBe(2);

    const versions = (await (await t.fetch(`/api/pipelines/${p.id}/versions`)).json()) as { versions: { version: number }[]; total_count: number };
    expect(versions.versions.map((v) => v.version)).toEqual([2, 1]);
    const v1 = (await (await t.fetch(`/api/pipelines/${p.id}/versions/1`)).json()) as { definition: { nodes: { config: unknown }[] } };
    expect(v1.definition.nodes[1]?.config).toEqual({ expression: "{'x': a}" });
    expect((await t.fetch(`/api/pipelines/${p.id}/versions/9`)).status).toBe(404);

    expect((await t.fetch(`/api/pipelines/${p.id}`, { method: "DELETE" })).status).toBe(204);
    const gone = await t.fetch(`/api/pipelines/${p.id}`);
    expect(gone.status).toBe(404);
    expect(((await gone.json()) as { error: { code: string } }).error.code).toBe("PIPELINE_NOT_FOUND");
  });

  it("follows the deploy state machine: deploy, 409 on delete, undeploy, delete", async () => {
    const t = await createTenant();
    const { id } = (await (await t.fetch("/api/pipelines", { method: "POST", json: { name: "A", definition: linear } })).json()) as { id: string };
    const deployed = (await (await t.fetch(`/api/pipelines/${id}/deploy`, { method: "POST" })).json()) as { status: string; deployed_version: number };
    expect(deployed).toMatchObject({ status: "deployed", deployed_version: 1 });
    // Deploy from deployed stays deployed ("any" → deployed).
    expect((await t.fetch(`/api/pipelines/${id}/deploy`, { method: "POST" })).status).toBe(200);

    const refused = await t.fetch(`/api/pipelines/${id}`, { method: "DELETE" });
    expect(refused.status).toBe(409);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe("PIPELINE_DEPLOYED");

    const undeployed = (await (await t.fetch(`/api/pipelines/${id}/undeploy`, { method: "POST" })).json()) as { status: string; deployed_version: null };
    expect(undeployed).toMatchObject({ status: "active", deployed_version: null });
    expect((await t.fetch(`/api/pipelines/${id}`, { method: "DELETE" })).status).toBe(204);
    for (const path of [`/api/pipelines/${id}/deploy`, `/api/pipelines/${id}/undeploy`]) {
      expect((await t.fetch(path, { method: "POST" })).status).toBe(404);
    }
  });

  it("keeps running the deployed version after an edit until redeployed", async () => {
    const t = await createTenant();
    const { id } = (await (await t.fetch("/api/pipelines", { method: "POST", json: { name: "A", definition: linear } })).json()) as { id: string };
    await t.fetch(`/api/pipelines/${id}/deploy`, { method: "POST" });
    // The edit also pins a test input to the transform (the editor's "run from here"): kept with the definition.
    const edited = definition([trigger(), { id: "t", type: "data.transform", config: { expression: "'v2'" }, pinned_input: { input: { a: 5 } } }], [edge("start", "t", "event")]);
    await t.fetch(`/api/pipelines/${id}`, { method: "PUT", json: { name: "A", definition: edited } });
    const stored = (await (await t.fetch(`/api/pipelines/${id}`)).json()) as { version: number; definition: { nodes: { pinned_input?: unknown }[] } };
    expect(stored.version).toBe(2);
    expect(stored.definition.nodes[1]?.pinned_input).toEqual({ input: { a: 5 } });
    const ranRes = await t.fetch("/api/execute", { method: "POST", json: { pipeline_id: id, inputs: { a: 1 } } });
    const ran = (await ranRes.json()) as { pipeline_version: number; outputs: unknown };
    expect(ran.pipeline_version).toBe(1);
    expect(ran.outputs).toEqual({ t: { output: { x: 1 } } });
    await t.fetch(`/api/pipelines/${id}/deploy`, { method: "POST" });
    const ran2 = (await (await t.fetch("/api/execute", { method: "POST", json: { pipeline_id: id, inputs: { a: 1 } } })).json()) as { pipeline_version: number; outputs: unknown };
    expect(ran2).toMatchObject({ pipeline_version: 2, outputs: { t: { output: "v2" } } });
  });

  it("rejects invalid definitions with per-node errors", async () => {
    const t = await createTenant();
    const post = (def: unknown) => t.fetch("/api/pipelines", { method: "POST", json: { name: "bad", definition: def } });

    const unknownType = await problems(await post(definition([trigger(), { id: "x", type: "nope.node" }], [edge("start", "x", "event")])));
    expect(unknownType).toContainEqual({ path: "nodes.x.type", message: "Unknown node type nope.node" });

    const unknownPort = await problems(await post(definition([trigger(), { id: "x", type: "output.log" }], [edge("start", "x", "nope")])));
    expect(unknownPort.some((p) => p.path === "nodes.start" && p.message.includes("no output port nope"))).toBe(true);

    // A searchset bundle cannot feed a port that wants one resource.
    const mismatch = await problems(
      await post(
        definition(
          [trigger(), { id: "s", type: "fhir.search", config: { resource_type: "Patient" } }, { id: "c", type: "fhir.create" }],
          [edge("start", "s", "event"), edge("s", "c", "bundle", "resource")],
        ),
      ),
    );
    expect(mismatch.some((p) => p.path === "nodes.c" && p.message.includes("Port type mismatch"))).toBe(true);

    const cycle = await problems(
      await post(
        definition(
          [trigger(), { id: "a", type: "output.log" }, { id: "b", type: "output.log" }],
          [edge("start", "a", "event"), edge("a", "b"), edge("b", "a")],
        ),
      ),
    );
    expect(cycle.some((p) => p.message.startsWith("Cycle: "))).toBe(true);

    const unreachable = await problems(await post(definition([trigger(), { id: "lonely", type: "output.log" }], [])));
    expect(unreachable).toContainEqual({ path: "nodes.lonely", message: "Node lonely is unreachable from any trigger" });

    const badConfig = await problems(await post(definition([trigger(), { id: "t", type: "data.transform", config: { expression: "(((" } }], [edge("start", "t", "event")])));
    expect(badConfig.some((p) => p.path === "nodes.t.config.expression" && p.message.startsWith("Invalid JSONata"))).toBe(true);

    const noTrigger = await problems(await post(definition([{ id: "a", type: "output.log" }], [])));
    expect(noTrigger.some((p) => p.path === "nodes" && p.message.includes("trigger"))).toBe(true);

    const errorPort = await problems(await post(definition([trigger(), { id: "a", type: "output.log" }, { id: "b", type: "output.log" }], [edge("start", "a", "event"), edge("a", "b", "error")])));
    expect(errorPort).toContainEqual({ path: "nodes.a.on_error", message: 'Node a connects its error port, so on_error must be "route"' });

    // Nested for-each bodies are validated with the same rules.
    const nested = await problems(
      await post(
        definition(
          [trigger(), { id: "loop", type: "control.for_each", config: { body: { nodes: [{ id: "x", type: "nope", config: {} }], connections: [] } } }],
          [edge("start", "loop", "event")],
        ),
      ),
    );
    expect(nested.some((p) => p.path === "nodes.loop.config.body.nodes.x.type")).toBe(true);
  });

  it("isolates tenants: another org sees 404 and cannot change or run a pipeline", async () => {
    const a = await createTenant();
    const b = await createTenant();
    const { id } = (await (await a.fetch("/api/pipelines", { method: "POST", json: { name: "A", definition: linear } })).json()) as { id: string };
    expect((await b.fetch(`/api/pipelines/${id}`)).status).toBe(404);
    expect((await b.fetch(`/api/pipelines/${id}`, { method: "PUT", json: { name: "x", definition: linear } })).status).toBe(404);
    expect((await b.fetch(`/api/pipelines/${id}/deploy`, { method: "POST" })).status).toBe(404);
    expect((await b.fetch(`/api/pipelines/${id}/versions`)).status).toBe(404);
    expect((await b.fetch(`/api/pipelines/${id}`, { method: "DELETE" })).status).toBe(404);
    expect((await b.fetch("/api/execute", { method: "POST", json: { pipeline_id: id, test_mode: true } })).status).toBe(404);
    expect(((await (await b.fetch("/api/pipelines")).json()) as { total_count: number }).total_count).toBe(0);
    expect((await a.fetch(`/api/pipelines/${id}`)).status).toBe(200);
  });

  it("enforces permissions: clinicians read and execute but do not manage", async () => {
    const admin = await createTenant();
    const { createKey, authedFetch } = await import("../support/tenants");
    const { key } = await createKey(admin.orgId, "clinician");
    const clinician = authedFetch(admin.orgId, key);
    expect((await clinician("/api/pipelines")).status).toBe(200);
    expect((await clinician("/api/pipelines", { method: "POST", json: { name: "A", definition: linear } })).status).toBe(403);
  });
});
