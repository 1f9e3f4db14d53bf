// Classifies what a model call threw into the documented errors: an unreachable
// or unconfigured model is MODEL_UNAVAILABLE (503), a model that answered with a
// failure is MODEL_ERROR (502), one that took too long is MODEL_TIMEOUT (504).
import { APICallError } from "ai";
import { ApiError, modelError, modelTimeout, modelUnavailable } from "../../platform/errors";

function causes(err: unknown): unknown[] {
  const chain: unknown[] = [];
  let cur: unknown = err;
  while (cur && chain.length < 8) {
    chain.push(cur);
    cur = cur instanceof Error ? cur.cause : undefined;
  }
  // RetryError keeps the attempts' errors in `errors`.
  const last = (err as { lastError?: unknown }).lastError;
  if (last) chain.push(...causes(last));
  return chain;
}

const isTimeout = (e: unknown) =>
  e instanceof Error && (e.name === "TimeoutError" || /timed? ?out/i.test(e.message));

export function classifyModelError(err: unknown, modelId: string): ApiError {
  const chain = causes(err);
  const known = chain.find((e): e is ApiError => e instanceof ApiError);
  if (known) return known;
  if (chain.some(isTimeout)) return modelTimeout(`Model ${modelId} did not answer in time`);
  const api = chain.find((e): e is APICallError => APICallError.isInstance(e));
  if (api?.statusCode !== undefined) {
    const detail = api.message.slice(0, 300);
    if (api.statusCode === 404 || api.statusCode === 401 || api.statusCode === 403) {
      return modelUnavailable(`Model ${modelId} is not usable (endpoint answered ${api.statusCode}: ${detail})`);
    }
    return modelError(`Model ${modelId} failed (endpoint answered ${api.statusCode}: ${detail})`);
  }
  if (api || chain.some((e) => e instanceof TypeError)) {
    return modelUnavailable(`Model ${modelId} could not be reached: ${(api ?? chain.at(-1) as Error).message}`);
  }
  const message = err instanceof Error ? err.message : String(err);
  return modelError(`Model ${modelId} failed: ${message.slice(0, 300)}`);
}
