// ai node "agent": runs a deployed agent of the org on the node input, with its
// tools, and outputs its answer and reasoning steps.
import { z } from "zod";
import { ApiError, agentNotDeployed, agentNotFound } from "../../../platform/errors";
import { collectTurn } from "../events";
import { AgentStore } from "../store";
import { prepareTurn } from "../turn";
import { inputOf } from "./complete";
import { defineNode } from "../../pipelines";
import { AI_INPUTS, aiContext } from "./types";

const Config = z.object({ agent_id: z.string().min(1).max(100) });

export const agentNode = defineNode({
  id: "ai.agent",
  name: "Agent",
  category: "ai",
  description: "Runs a deployed agent (its prompt, model and tools) on the input",
  keywords: ["agent", "llm", "assistant", "tools", "reasoning"],
  inputs: AI_INPUTS,
  outputs: [
    { name: "output", type: "text" },
    { name: "reasoning_steps", type: "json" },
  ],
  config: Config,
  documentation: {
    summary: "Runs a deployed agent with its prompt, model and tools; outputs its answer and reasoning steps.",
    example: { config: { agent_id: "7b0f3c1e-2d4a-4f6b-9c8d-1e2f3a4b5c6d" }, inputs: { input: "Summarise the latest HbA1c results" } },
  },
  run: async (node) => {
    const { config, inputs } = node;
    const ctx = aiContext(node);
    const agent = await new AgentStore(ctx.data.db).get(ctx.principal.orgId, config.agent_id);
    if (!agent) throw agentNotFound(config.agent_id);
    if (!agent.deployed) throw agentNotDeployed(config.agent_id);
    const turn = await prepareTurn(ctx.data, ctx.principal, ctx.services, { agent, input: inputOf(inputs), signal: ctx.signal });
    const result = await collectTurn(turn.events, (e) => new ApiError(e.status, e.code, e.message));
    return { outputs: { output: result.response, reasoning_steps: result.reasoning_steps, model: turn.modelId } };
  },
});
