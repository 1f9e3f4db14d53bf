// The agents' seam wired to the real pipelines and custom tools of the caller's org.
import { describe, expect, it } from "vitest";
import { env } from "cloudflare:workers";
import type { Principal } from "../../src/features/tenancy/auth/permissions";
import { agentServicesFor } from "../../src/service-wiring";
import { createPipeline, definition, edge, trigger } from "../support/pipelines";
import { type Tenant, createTenant } from "../support/tenants";

const params = { type: "object", properties: { patient_id: { type: "string" } }, required: ["patient_id"] };
const principalOf = (t: Tenant): Principal => ({ orgId: t.orgId, keyId: t.keyId, keyName: "admin key", role: "admin", scopes: [] });

async function greetingTool(t: Tenant) {
  const pipeline = await createPipeline(
    t,
    definition([trigger(), { id: "r", type: "output.respond", config: { expression: "{'greeting': 'hi ' & patient_id}" } }], [edge("start", "r", "event")]),
  );
  const res = await t.fetch("/api/tools", { method: "POST", json: { name: "greet", description: "Greets a patient", parameters: params, implementation: { kind: "pipeline", pipeline_id: pipeline } } });
  return { pipeline, tool: (await res.json()) as { id: string } };
}

describe("agent services wiring", () => {
  it("runs a deployed pipeline and the org's custom tools by name or id", async () => {
    const t = await createTenant();
    const { pipeline, tool } = await greetingTool(t);
    const services = agentServicesFor(env, principalOf(t));
    expect(await services.runPipeline(pipeline, { patient_id: "p7" })).toEqual({ greeting: "hi p7" });
    const listed = await services.listCustomTools();
    expect(listed.map((x) => [x.name, x.description])).toEqual([["greet", "Greets a patient"]]);
    expect(await (await services.customTool("greet"))!.execute({ patient_id: "p1" })).toEqual({ greeting: "hi p1" });
    expect((await services.customTool(tool.id))!.name).toBe("greet");
    expect(await services.customTool("nope")).toBeUndefined();
    await expect((await services.customTool("greet"))!.execute({ patient_id: 5 })).rejects.toThrow(/do not match/);
  });

  it("sees only the caller's organization's pipelines and tools", async () => {
    const a = await createTenant();
    const b = await createTenant();
    const { pipeline, tool } = await greetingTool(a);
    const asB = agentServicesFor(env, principalOf(b));
    expect(await asB.listCustomTools()).toEqual([]);
    expect(await asB.customTool("greet")).toBeUndefined();
    expect(await asB.customTool(tool.id)).toBeUndefined();
    await expect(asB.runPipeline(pipeline, { patient_id: "x" })).rejects.toMatchObject({ status: 404 });
  });
});
