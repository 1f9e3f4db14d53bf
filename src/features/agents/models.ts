// Model access, behind one module: which language models an organization can use
// (Workers AI through the env.AI binding, and OpenAI-compatible endpoints), and
// turning a configured model id into an AI SDK model. Nothing else imports a provider.
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import type { LanguageModel } from "ai";
import { createWorkersAI } from "workers-ai-provider";
import { modelUnavailable } from "../../platform/errors";

export type PricingTier = "free" | "low" | "standard" | "premium" | "self-hosted";

export interface ModelInfo {
  /** What model_config.model names: `<provider or endpoint id>/<model name>`. */
  id: string;
  name: string;
  provider: "workers-ai" | "openai-compatible";
  endpoint_id: string;
  capabilities: { tool_calling: boolean; streaming: boolean };
  context_window: number;
  pricing_tier: PricingTier;
}

export interface EndpointModel {
  name: string;
  context_window?: number;
  tool_calling?: boolean;
  pricing_tier?: PricingTier;
}

/** An OpenAI-compatible endpoint (llama.cpp, Ollama, vLLM, a hosted service). */
export interface ModelEndpoint {
  id: string;
  baseURL: string;
  apiKey?: string;
  models: EndpointModel[];
  /** Replaces global fetch (a service binding, or a test server). */
  fetch?: typeof fetch;
}

export const DEFAULT_CONTEXT_WINDOW = 8192;

/**
 * Workers AI models offered when the AI binding is present: text-generation models
 * Cloudflare documents with function calling. Context windows are Cloudflare's figures.
 */
export const WORKERS_AI_MODELS: readonly EndpointModel[] = [
  { name: "@cf/meta/llama-3.3-70b-instruct-fp8-fast", context_window: 24_000, tool_calling: true, pricing_tier: "standard" },
  { name: "@cf/meta/llama-4-scout-17b-16e-instruct", context_window: 131_000, tool_calling: true, pricing_tier: "standard" },
  { name: "@cf/mistralai/mistral-small-3.1-24b-instruct", context_window: 128_000, tool_calling: true, pricing_tier: "standard" },
  { name: "@hf/nousresearch/hermes-2-pro-mistral-7b", context_window: 24_000, tool_calling: true, pricing_tier: "low" },
];

export interface ModelSources {
  ai?: Ai;
  endpoints: ModelEndpoint[];
}

function info(provider: ModelInfo["provider"], endpointId: string, m: EndpointModel): ModelInfo {
  return {
    id: `${endpointId}/${m.name}`,
    name: m.name,
    provider,
    endpoint_id: endpointId,
    capabilities: { tool_calling: m.tool_calling ?? true, streaming: true },
    context_window: m.context_window ?? DEFAULT_CONTEXT_WINDOW,
    pricing_tier: m.pricing_tier ?? (provider === "workers-ai" ? "standard" : "self-hosted"),
  };
}

/** Organization endpoints first (the org chose them), then Workers AI. */
export function listModels(sources: ModelSources): ModelInfo[] {
  const models = sources.endpoints.flatMap((e) => e.models.map((m) => info("openai-compatible", e.id, m)));
  if (sources.ai) models.push(...WORKERS_AI_MODELS.map((m) => info("workers-ai", "workers-ai", m)));
  return models;
}

/** The alias templates use: the first model that can call tools. */
export const DEFAULT_MODEL = "default";

/** Finds a model by id, by bare name when unambiguous, or the default; undefined when none. */
export function findModel(models: ModelInfo[], requested: string): ModelInfo | undefined {
  if (requested === DEFAULT_MODEL) return models.find((m) => m.capabilities.tool_calling) ?? models[0];
  const exact = models.find((m) => m.id === requested);
  if (exact) return exact;
  const byName = models.filter((m) => m.name === requested);
  return byName.length === 1 ? byName[0] : undefined;
}

export function noModelMessage(models: ModelInfo[], requested: string): string {
  if (!models.length) {
    return (
      "No language model is configured for this organization: bind Workers AI (env.AI) or set LLM_BASE_URL " +
      "and LLM_MODELS to an OpenAI-compatible endpoint, or configure one as a connector"
    );
  }
  return `Model "${requested}" is not available to this organization; available: ${models.map((m) => m.id).join(", ")}`;
}

export interface ResolvedModel {
  info: ModelInfo;
  model: LanguageModel;
}

/** The AI SDK model for a configured id; MODEL_UNAVAILABLE (503) when there is none. */
export function resolveModel(sources: ModelSources, requested: string): ResolvedModel {
  const models = listModels(sources);
  const found = findModel(models, requested);
  if (!found) throw modelUnavailable(noModelMessage(models, requested));
  if (found.provider === "workers-ai") {
    if (!sources.ai) throw modelUnavailable("Workers AI is not bound (env.AI)");
    return { info: found, model: createWorkersAI({ binding: sources.ai })(found.name) };
  }
  const endpoint = sources.endpoints.find((e) => e.id === found.endpoint_id);
  if (!endpoint) throw modelUnavailable(noModelMessage(models, requested));
  const provider = createOpenAICompatible({
    name: endpoint.id,
    baseURL: endpoint.baseURL,
    apiKey: endpoint.apiKey,
    fetch: endpoint.fetch,
    includeUsage: true,
  });
  return { info: found, model: provider.chatModel(found.name) };
}

/** The endpoint configured by deployment variables (see README, "Agents and models"). */
export function envModelEndpoint(vars: {
  LLM_BASE_URL?: string;
  LLM_API_KEY?: string;
  LLM_MODELS?: string;
  LLM_CONTEXT_WINDOW?: string;
}): ModelEndpoint | undefined {
  const baseURL = vars.LLM_BASE_URL?.trim();
  const names = (vars.LLM_MODELS ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  if (!baseURL || !names.length) return undefined;
  const window = Number(vars.LLM_CONTEXT_WINDOW);
  const context_window = Number.isInteger(window) && window > 0 ? window : DEFAULT_CONTEXT_WINDOW;
  return {
    id: "env",
    baseURL: baseURL.replace(/\/+$/, ""),
    apiKey: vars.LLM_API_KEY || undefined,
    models: names.map((name) => ({ name, context_window })),
  };
}
