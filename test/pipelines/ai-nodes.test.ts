// The ai node family inside real pipeline executions: catalog entries adapted from
// the agents module, run with the pipeline's principal against the fake model server.
import { beforeAll, describe, expect, it } from "vitest";
import { giveModel, installAgentFakes } from "../support/agent-fakes";
import { createPipeline, definition, edge, run, trigger } from "../support/pipelines";
import { createTenant } from "../support/tenants";

beforeAll(installAgentFakes);

describe("ai nodes in pipelines", () => {
  it("lists the four ai nodes with config schemas", async () => {
    const t = await createTenant();
    const body = (await (await t.fetch("/api/node-catalog?category=ai")).json()) as { nodes: { id: string; config_schema: { type: string } }[] };
    expect(body.nodes.map((n) => n.id).sort()).toEqual(["ai.agent", "ai.classify", "ai.extract_fhir", "ai.llm_prompt"]);
    expect(body.nodes.every((n) => n.config_schema.type === "object")).toBe(true);
  });

  it("classifies the trigger's text in an execution", async () => {
    const t = await createTenant();
    const server = giveModel(t.orgId, () => ({ content: "routine" }));
    const pipeline = await createPipeline(
      t,
      definition(
        [trigger(), { id: "text", type: "data.transform", config: { expression: "complaint" } }, { id: "triage", type: "ai.classify", config: { labels: ["urgent", "routine"] } }],
        [edge("start", "text", "event"), edge("text", "triage", "output", "input")],
      ),
    );
    const { res, body } = await run(t, pipeline, { complaint: "Mild rash for two weeks" });
    expect(res.status).toBe(200);
    expect(body.status).toBe("completed");
    expect(body.outputs).toMatchObject({ triage: { label: "routine" } });
    expect(server.requests.at(-1)?.messages.at(-1)?.content).toContain("Mild rash");
  });

  it("fails the node, not the service, when the model answers no label", async () => {
    const t = await createTenant();
    giveModel(t.orgId, () => ({ content: "no idea" }));
    const pipeline = await createPipeline(t, definition([trigger(), { id: "c", type: "ai.classify", config: { labels: ["a", "b"] } }], [edge("start", "c", "event")]));
    const { body } = await run(t, pipeline, { text: "x" });
    expect(body.status).toBe("failed");
    expect(body.node_results.c?.error?.code).toBe("MODEL_ERROR");
  });
});
