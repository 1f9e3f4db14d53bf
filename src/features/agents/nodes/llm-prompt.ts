// ai node "llm_prompt": renders a prompt with {{input}} and returns the model's text.
import { z } from "zod";
import { hasInputPlaceholder, renderPrompt } from "../prompt";
import { ModelSettings, complete, inputOf } from "./complete";
import { defineNode } from "../../pipelines";
import { AI_INPUTS, aiContext } from "./types";

const Config = z.object({
  ...ModelSettings,
  prompt: z.string().min(1).max(20_000).refine(hasInputPlaceholder, "prompt must contain {{input}}"),
  system: z.string().max(20_000).default(""),
});

export const llmPromptNode = defineNode({
  id: "ai.llm_prompt",
  name: "LLM prompt",
  category: "ai",
  description: "Sends a prompt (with {{input}} replaced by the node input) to a language model and outputs its text",
  keywords: ["llm", "prompt", "generate", "text", "model"],
  inputs: AI_INPUTS,
  outputs: [{ name: "text", type: "text" }],
  config: Config,
  documentation: {
    summary: "Renders the prompt with {{input}} and returns the model's text.",
    example: { config: { prompt: "Write a discharge summary for: {{input}}", model: "default" }, inputs: { input: "..." } },
  },
  run: async (node) => {
    const { config, inputs } = node;
    const { text, model } = await complete(aiContext(node), config, config.system, renderPrompt(config.prompt, inputOf(inputs)));
    return { outputs: { text, model } };
  },
});
