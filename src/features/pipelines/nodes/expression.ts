// JSONata expressions used by node configs: compiled once per text, checked
// when a definition is saved, evaluated against a node's input.
import jsonata from "jsonata";
import { z } from "zod";
import { NodeFailure } from "../node-failure";

type Compiled = ReturnType<typeof jsonata>;
const MAX_CACHED = 1000;
const compiled = new Map<string, Compiled>();

function compile(expression: string): Compiled {
  let expr = compiled.get(expression);
  if (!expr) {
    expr = jsonata(expression);
    if (compiled.size >= MAX_CACHED) compiled.delete(compiled.keys().next().value as string);
    compiled.set(expression, expr);
  }
  return expr;
}

function syntaxError(expression: string): string | undefined {
  try {
    compile(expression);
    return undefined;
  } catch (e) {
    return jsonataMessage(e);
  }
}

/** JSONata throws plain objects ({code, message, position}), not Errors: keep their message. */
function jsonataMessage(e: unknown): string {
  const message = (e as { message?: unknown } | null)?.message;
  return typeof message === "string" ? message : String(e);
}

/** A config field holding a JSONata expression; syntax errors fail validation on save. */
export const jsonataExpression = (description: string) =>
  z
    .string()
    .min(1)
    .superRefine((value, ctx) => {
      const error = syntaxError(value);
      if (error) ctx.addIssue({ code: "custom", message: `Invalid JSONata: ${error}` });
    })
    .describe(`JSONata expression: ${description}`);

export async function evaluate(expression: string, input: unknown, bindings: Record<string, unknown> = {}): Promise<unknown> {
  try {
    return await compile(expression).evaluate(input, bindings);
  } catch (e) {
    throw new NodeFailure("EXPRESSION_FAILED", `JSONata "${expression}" failed: ${jsonataMessage(e)}`);
  }
}

/** JSONata's truthiness (empty sequences and strings are false). */
export async function test(expression: string, input: unknown): Promise<boolean> {
  const value = await evaluate(expression, input);
  if (Array.isArray(value)) return value.length > 0 && value.some(Boolean);
  return Boolean(value);
}
