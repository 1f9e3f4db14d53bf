// generate/agent: an agent configuration that POST /api/agents would accept (its own body
// schema), whose tools exist in the organization and whose model the organization can use;
// the agents' checks go back to the model until it passes (bounded).
import { AGENT_TYPES, type AssignedTool, CreateAgentBody, type ModelInfo, type ResolvedModel } from "../../agents";
import { agentFindings } from "../agent-checks";
import { generateStructured } from "./structured";

export const GeneratedAgentSchema = CreateAgentBody.omit({ template_id: true, project_id: true }).required();

export interface AgentGeneration {
  model: ResolvedModel;
  models: ModelInfo[];
  /** Tools the org offers: built-in and custom, with descriptions. */
  tools: { name: string; description: string }[];
  describe: (names: string[]) => Promise<AssignedTool[]>;
  attempts?: number;
}

export async function generateAgent(g: AgentGeneration, description: string) {
  const system = [
    "You configure LLM agents of a clinical data integration service. Answer with one JSON object with the fields",
    `name, agent_type (one of ${AGENT_TYPES.join(", ")}), description, system_prompt, prompt_template (must contain {{input}}, where the user's message goes), tools (names from the list below only), model_config {model, temperature (0-2), max_tokens}.`,
    `Models available: ${g.models.map((m) => `${m.id} (context ${m.context_window}${m.capabilities.tool_calling ? ", tools" : ""})`).join("; ") || "none"}; "default" picks the first that can call tools.`,
    `Tools available:\n${g.tools.map((t) => `- ${t.name}: ${t.description}`).join("\n")}`,
  ].join("\n");
  const result = await generateStructured(
    {
      model: g.model.model,
      modelId: g.model.info.id,
      system,
      prompt: `Configure an agent for: ${description}`,
      schema: GeneratedAgentSchema,
      attempts: g.attempts,
      check: async (agent) => agentFindings(agent, await g.describe(agent.tools), g.models).errors.map((f) => ({ path: f.path ?? "agent", message: f.message })),
    },
    "agent configuration",
  );
  const findings = agentFindings(result.value, await g.describe(result.value.tools), g.models);
  return { agent: result.value, warnings: findings.warnings, attempts: result.attempts, repaired: result.repaired, model: g.model.info.id };
}
