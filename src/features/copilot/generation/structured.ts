// Structured generation with validation and bounded repair: the model answers JSON for a zod
// schema; the answer is parsed (tolerating a Markdown fence), checked by the caller's checker
// (the service's own validators), and on errors the model sees them and tries again, at most
// `attempts` times. Never returns an answer that failed its check.
import { generateText, type LanguageModel, type ModelMessage, NoObjectGeneratedError, Output } from "ai";
import type { z } from "zod";
import { ApiError, type FieldError } from "../../../platform/errors";
import { classifyModelError } from "../../agents";

export const DEFAULT_ATTEMPTS = 3;
const MODEL_TIMEOUT_MS = 60_000;

export interface StructuredRequest<T> {
  model: LanguageModel;
  modelId: string;
  system: string;
  prompt: string;
  schema: z.ZodType<T>;
  /** Errors of a parsed answer (empty: accepted); `last`: no attempt follows, so an error now is the answer's end. */
  check: (value: T, round: { last: boolean }) => FieldError[] | Promise<FieldError[]>;
  attempts?: number;
  signal?: AbortSignal;
}

export interface Structured<T> {
  value: T;
  attempts: number;
  /** The errors each rejected attempt had, in order (the repairs made). */
  repaired: FieldError[][];
}

/** The model could not produce an answer that passes the checks: 422 with the last errors. */
export const generationInvalid = (what: string, attempts: number, errors: FieldError[]) =>
  new ApiError(422, "GENERATION_INVALID", `The model did not produce a valid ${what} in ${attempts} attempts; the last attempt's errors are in details`, errors);

/** The JSON in a model's text: the whole text, or the content of its first fenced block. */
export function jsonIn(text: string): unknown {
  const fenced = /```(?:json)?([\s\S]*?)```/.exec(text);
  return JSON.parse((fenced ? fenced[1] : text)?.trim() ?? "");
}

function parseAnswer<T>(schema: z.ZodType<T>, text: string): { value?: T; errors: FieldError[] } {
  let raw: unknown;
  try {
    raw = jsonIn(text);
  } catch (e) {
    return { errors: [{ path: "(root)", message: `Not JSON: ${e instanceof Error ? e.message : String(e)}` }] };
  }
  const parsed = schema.safeParse(raw);
  if (parsed.success) return { value: parsed.data, errors: [] };
  return { errors: parsed.error.issues.map((i) => ({ path: i.path.map(String).join(".") || "(root)", message: i.message })) };
}

export async function generateStructured<T>(req: StructuredRequest<T>, what: string): Promise<Structured<T>> {
  const attempts = Math.max(1, req.attempts ?? DEFAULT_ATTEMPTS);
  const messages: ModelMessage[] = [{ role: "user", content: req.prompt }];
  const repaired: FieldError[][] = [];
  let errors: FieldError[] = [];
  for (let attempt = 1; attempt <= attempts; attempt++) {
    let text: string;
    let value: T | undefined;
    try {
      const timeout = AbortSignal.timeout(MODEL_TIMEOUT_MS);
      const result = await generateText({
        model: req.model,
        system: req.system,
        messages,
        output: Output.object({ schema: req.schema }),
        maxRetries: 1,
        abortSignal: req.signal ? AbortSignal.any([req.signal, timeout]) : timeout,
      });
      text = result.text;
      value = result.output as T;
    } catch (err) {
      // The SDK's own parse failed: read the text ourselves (fences, trailing prose) before giving up on it.
      if (!NoObjectGeneratedError.isInstance(err)) throw classifyModelError(err, req.modelId);
      text = err.text ?? "";
    }
    if (value === undefined) {
      const parsed = parseAnswer(req.schema, text);
      value = parsed.value;
      errors = parsed.errors;
    }
    if (value !== undefined) errors = await req.check(value, { last: attempt === attempts });
    if (!errors.length && value !== undefined) return { value, attempts: attempt, repaired };
    repaired.push(errors);
    messages.push({ role: "assistant", content: text || "(no answer)" });
    messages.push({
      role: "user",
      content: `That ${what} was rejected by the service's validator:\n${errors.map((e) => `- ${e.path}: ${e.message}`).join("\n")}\nReturn the complete corrected JSON only.`,
    });
  }
  throw generationInvalid(what, attempts, errors);
}
