// ai node "llm_prompt": renders a prompt with {{input}} and returns the model's text.
import { z } from "zod";
import { hasInputPlaceholder, renderPrompt } from "../prompt";
import { ModelSettings, complete, inputOf } from "./complete";
import type { AiNode } from "./types";

const Config = z.object({
  ...ModelSettings,
  prompt: z.string().min(1).max(20_000).refine(hasInputPlaceholder, "prompt must contain {{input}}"),
  system: z.string().max(20_000).default(""),
});

export const llmPromptNode: AiNode<typeof Config> = {
  id: "llm_prompt",
  name: "LLM prompt",
  category: "ai",
  description: "Sends a prompt (with {{input}} replaced by the node input) to a language model and outputs its text",
  inputs: [{ name: "input", type: "text" }],
  outputs: [{ name: "text", type: "text" }],
  configSchema: Config,
  run: async (config, inputs, ctx) => {
    const { text, model } = await complete(ctx, config, config.system, renderPrompt(config.prompt, inputOf(inputs)));
    return { text, model };
  },
};
