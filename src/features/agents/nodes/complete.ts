// One tool-less model call for the ai nodes, through the same model module and
// loop as agents (so errors, timeouts and MODEL_UNAVAILABLE behave the same).
import { z } from "zod";
import { ApiError } from "../../../platform/errors";
import { collectTurn } from "../events";
import { resolveModel } from "../models";
import { runAgent } from "../run";
import type { AiNodeContext } from "./types";
import { optionalBinding } from "../../../platform/settings";

export const ModelSettings = {
  model: z.string().min(1).default("default"),
  temperature: z.number().min(0).max(2).default(0),
  max_tokens: z.number().int().min(1).max(32_768).default(1024),
};

export async function complete(
  ctx: AiNodeContext,
  settings: { model: string; temperature: number; max_tokens: number },
  system: string,
  prompt: string,
): Promise<{ text: string; model: string }> {
  const resolved = resolveModel({ ai: optionalBinding<Ai>(ctx.env, "AI"), endpoints: await ctx.services.modelEndpoints() }, settings.model);
  const turn = await collectTurn(
    runAgent({
      model: resolved.model,
      modelId: resolved.info.id,
      system,
      messages: [{ role: "user", content: prompt }],
      tools: [],
      agentId: "pipeline-node",
      temperature: settings.temperature,
      maxTokens: settings.max_tokens,
      maxSteps: 1,
      signal: ctx.signal,
    }),
    (e) => new ApiError(e.status, e.code, e.message),
  );
  return { text: turn.response, model: resolved.info.id };
}

export function inputOf(inputs: Record<string, unknown>): unknown {
  return inputs.input ?? inputs.text ?? inputs;
}
