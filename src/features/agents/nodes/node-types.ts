// The ai node family: the agents module's four nodes (agent, LLM prompt, classify,
// extract to FHIR), adapted to the catalog's NodeType contract.
import type { z } from "zod";
import { agentNode, classifyNode, extractFhirNode, llmPromptNode } from ".";
import type { AiNode } from ".";
import { defineNode, type NodeDocumentation } from "../../pipelines/node-type";

function catalogNode<C extends z.ZodType>(node: AiNode<C>, keywords: string[], documentation: NodeDocumentation) {
  return defineNode<z.infer<C>>({
    id: `ai.${node.id}`,
    name: node.name,
    category: "ai",
    description: node.description,
    keywords,
    // A model reads any value: objects are given to it as JSON text.
    inputs: node.inputs.map((p) => ({ ...p, type: "any", description: "Text, or any value (sent to the model as JSON)" })),
    outputs: node.outputs,
    config: node.configSchema as z.ZodType<z.infer<C>>,
    documentation,
    run: async (ctx) => ({ outputs: await node.run(ctx.config, ctx.inputs, { ...ctx.services.ai(), signal: ctx.signal }) }),
  });
}

export const AI_NODES = [
  catalogNode(agentNode, ["agent", "llm", "assistant", "tools", "reasoning"], {
    summary: "Runs a deployed agent with its prompt, model and tools; outputs its answer and reasoning steps.",
    example: { config: { agent_id: "7b0f3c1e-2d4a-4f6b-9c8d-1e2f3a4b5c6d" }, inputs: { input: "Summarise the latest HbA1c results" } },
  }),
  catalogNode(llmPromptNode, ["llm", "prompt", "generate", "text", "model"], {
    summary: "Renders the prompt with {{input}} and returns the model's text.",
    example: { config: { prompt: "Write a discharge summary for: {{input}}", model: "default" }, inputs: { input: "..." } },
  }),
  catalogNode(classifyNode, ["classify", "label", "triage", "category", "llm"], {
    summary: "Picks exactly one of the configured labels; an answer that is not a label fails the node.",
    example: { config: { labels: ["urgent", "routine"] }, inputs: { input: "Chest pain since this morning" }, outputs: { label: "urgent" } },
  }),
  catalogNode(extractFhirNode, ["extract", "structured", "fhir", "nlp", "llm", "resources"], {
    summary: "Extracts FHIR resources from free text; only resources that pass validation are output, in a collection Bundle.",
    example: { config: { resource_types: ["Condition"], patient_reference: "Patient/123" }, inputs: { input: "Known type 2 diabetes" } },
  }),
];
