// ai node "classify": the model picks one of the configured labels; an answer
// that is not a label is an error, never a guessed label.
import { z } from "zod";
import { modelError } from "../../../platform/errors";
import { inputText } from "../prompt";
import { ModelSettings, complete, inputOf } from "./complete";
import { defineNode } from "../../pipelines";
import { AI_INPUTS, aiContext } from "./types";

const Config = z.object({
  ...ModelSettings,
  labels: z.array(z.string().min(1).max(100)).min(2).max(50),
  instructions: z.string().max(5000).default(""),
});

/** The label an answer names: exact (case-insensitive), else the only label it contains. */
export function matchLabel(answer: string, labels: string[]): string | undefined {
  const clean = answer.trim().replace(/^["'`*]+|["'`*.]+$/g, "").trim().toLowerCase();
  const exact = labels.find((l) => l.toLowerCase() === clean);
  if (exact) return exact;
  const contained = labels.filter((l) => new RegExp(`\\b${l.toLowerCase().replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\\b`).test(clean));
  return contained.length === 1 ? contained[0] : undefined;
}

export const classifyNode = defineNode({
  id: "ai.classify",
  name: "Classify",
  category: "ai",
  description: "Assigns the input one of a fixed set of labels using a language model",
  keywords: ["classify", "label", "triage", "category", "llm"],
  inputs: AI_INPUTS,
  outputs: [
    { name: "label", type: "text" },
    { name: "raw", type: "text" },
  ],
  config: Config,
  documentation: {
    summary: "Picks exactly one of the configured labels; an answer that is not a label fails the node.",
    example: { config: { labels: ["urgent", "routine"] }, inputs: { input: "Chest pain since this morning" }, outputs: { label: "urgent" } },
  },
  run: async (node) => {
    const { config, inputs } = node;
    const system =
      `Classify the user's input into exactly one of these labels: ${config.labels.join(", ")}. ` +
      `Answer with the label only. ${config.instructions}`.trim();
    const { text, model } = await complete(aiContext(node), config, system, inputText(inputOf(inputs)));
    const label = matchLabel(text, config.labels);
    if (!label) throw modelError(`Model ${model} answered "${text.slice(0, 200)}", which is not one of the labels`);
    return { outputs: { label, raw: text, model } };
  },
});
