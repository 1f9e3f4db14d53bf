// The ai pipeline nodes against the fake OpenAI-compatible server.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { Principal } from "../../src/features/tenancy/auth/permissions";
import { agentNode, classifyNode, extractFhirNode, llmPromptNode } from "../../src/features/agents/nodes";
import type { OrgContext } from "../../src/platform/org-context";
import type { NodeContext, NodeType } from "../../src/features/pipelines/node-type";
import type { PipelineServices } from "../../src/features/pipelines/services";
import { fakeAgentServices, giveModel } from "../support/agent-fakes";
import { lastOf } from "../support/fake-openai";
import { createTenant, type Tenant } from "../support/tenants";

/** Runs an ai node as the engine would, with the tenant's fake agent services; answers its outputs. */
async function runNode(node: NodeType<unknown>, config: unknown, inputs: Record<string, unknown>, t: Tenant): Promise<Record<string, unknown>> {
  const principal: Principal = { orgId: t.orgId, keyId: t.keyId, keyName: "test", role: "admin", scopes: [] };
  // The ai nodes take their agents' services from the org context: here the tenant's fakes.
  const data: OrgContext = { ...t.ctx, agents: () => fakeAgentServices(t.orgId) };
  const services = { ai: () => ({ env, data, principal, testMode: false }) } as unknown as PipelineServices;
  const ctx: NodeContext<unknown> = {
    nodeId: node.id,
    config,
    inputs,
    orgId: t.orgId,
    executionId: crypto.randomUUID(),
    testMode: false,
    trigger: { kind: "manual" },
    services,
    signal: new AbortController().signal,
    resumed: false,
    log: () => undefined,
    wouldWrite: () => undefined,
    runBody: () => Promise.reject(new Error("no nested bodies in ai nodes")),
  };
  const result = await node.run(ctx);
  if (!("outputs" in result)) throw new Error("an ai node never waits");
  return result.outputs;
}

describe("ai nodes", () => {
  it("llm_prompt renders {{input}} and outputs the text", async () => {
    const t = await createTenant();
    const server = giveModel(t.orgId, (req) => ({ content: `len ${lastOf(req, "user").length}` }));
    const config = llmPromptNode.config.parse({ prompt: "Say: {{input}}" });
    const out = await runNode(llmPromptNode, config, { input: "abc" }, t);
    expect(out).toEqual({ text: "len 8", model: "local/fake-llama" });
    expect(server.requests[0]?.tools).toBeUndefined();
    expect(llmPromptNode.config.safeParse({ prompt: "no placeholder" }).success).toBe(false);
  });

  it("classify returns a configured label, and refuses an answer that is none", async () => {
    const t = await createTenant();
    let answer = "Urgent.";
    giveModel(t.orgId, () => ({ content: answer }));
    const config = classifyNode.config.parse({ labels: ["emergent", "urgent", "routine"] });
    expect(await runNode(classifyNode, config, { input: "chest pain" }, t)).toMatchObject({ label: "urgent" });
    answer = "I cannot tell";
    await expect(runNode(classifyNode, config, { input: "?" }, t)).rejects.toMatchObject({ code: "MODEL_ERROR" });
  });

  it("extract_fhir outputs only resources that validate", async () => {
    const t = await createTenant();
    giveModel(t.orgId, () => ({
      content:
        "```json\n" +
        JSON.stringify({
          resources: [
            { resourceType: "Observation", status: "final", code: { coding: [{ system: "http://loinc.org", code: "8867-4" }] }, subject: { reference: "Patient/p1" }, valueQuantity: { value: 88, unit: "/min" } },
            { resourceType: "Condition", code: { text: "hypertension" }, subject: { reference: "Patient/p1" } },
            { resourceType: "Observation", code: { text: "no status" } },
            { resourceType: "Patient", id: "x" },
          ],
        }) +
        "\n```",
    }));
    const config = extractFhirNode.config.parse({ resource_types: ["Observation", "Condition"], patient_reference: "Patient/p1" });
    const out = (await runNode(extractFhirNode, config, { input: "HR 88, known hypertension" }, t)) as {
      bundle: { type: string; entry: { resource: { resourceType: string } }[] };
      rejected: { index: number; errors: { path: string }[] }[];
    };
    expect(out.bundle.type).toBe("collection");
    expect(out.bundle.entry.map((e) => e.resource.resourceType)).toEqual(["Observation", "Condition"]);
    expect(out.rejected.map((r) => r.index)).toEqual([2, 3]);
    expect(out.rejected[0]?.errors.map((e) => e.path)).toContain("status");
  });

  it("extract_fhir reports a non-JSON answer as a model error", async () => {
    const t = await createTenant();
    giveModel(t.orgId, () => ({ content: "Sure! Here are the facts." }));
    const config = extractFhirNode.config.parse({});
    await expect(runNode(extractFhirNode, config, { input: "x" }, t)).rejects.toMatchObject({ code: "MODEL_ERROR" });
  });

  it("agent runs only deployed agents of the same org", async () => {
    const t = await createTenant();
    giveModel(t.orgId, (req) => ({ content: `agent saw ${lastOf(req, "user")}` }));
    const res = await t.fetch("/api/agents", { method: "POST", json: { template_id: "template-custom", prompt_template: "Q: {{input}}" } });
    const { id } = (await res.json()) as { id: string };
    const config = agentNode.config.parse({ agent_id: id });
    await expect(runNode(agentNode, config, { input: "x" }, t)).rejects.toMatchObject({ code: "AGENT_NOT_DEPLOYED" });
    await t.fetch(`/api/agents/${id}/deploy`, { method: "POST" });
    expect(await runNode(agentNode, config, { input: "hello" }, t)).toMatchObject({ output: "agent saw Q: hello" });
    const other = await createTenant();
    await expect(runNode(agentNode, config, { input: "x" }, other)).rejects.toMatchObject({ code: "AGENT_NOT_FOUND" });
  });
});
