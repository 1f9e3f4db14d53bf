// JSONata expressions used by node configs: compiled once per text, checked
// when a definition is saved, evaluated against a node's input within a step budget
// (platform/step-budget.ts): JSONata's own entry/exit hooks count every evaluation and every
// item of the sequences it builds, and hand the thread back now and then, so one organization's
// runaway expression fails its node instead of holding the Worker for everyone.
import jsonata from "jsonata";
import { z } from "zod";
import { superLinearRegex } from "../../../platform/regex-safety";
import { BUDGET_EXCEEDED, ExpressionBudgetExceeded, type StepBudget, stepBudget } from "../../../platform/step-budget";
import { NodeFailure } from "../node-failure";

type Compiled = ReturnType<typeof jsonata>;
const MAX_CACHED = 1000;
const compiled = new Map<string, Compiled>();

/** Nesting of evaluations (recursive functions included); real mappings stay far below. */
export const MAX_EXPRESSION_DEPTH = 10_000;
/** Items of one sequence (a range such as [1..n], a mapping's result). */
export const MAX_SEQUENCE_ITEMS = 1_000_000;
/** JSONata's own codes for the depth and sequence guards above, and its fixed 1e7 range guard. */
const GUARD_CODES: Record<string, () => string> = {
  D1011: () => `The expression nested deeper than ${MAX_EXPRESSION_DEPTH.toLocaleString("en-US")} evaluations`,
  D2014: () => `A range may hold at most ${MAX_SEQUENCE_ITEMS.toLocaleString("en-US")} items`,
  D2015: () => `A sequence may hold at most ${MAX_SEQUENCE_ITEMS.toLocaleString("en-US")} items`,
};

/** The binding that carries an evaluation's budget: not a JSONata name, so no expression can read it. */
const BUDGET = "\u0000budget";
interface Frame {
  base: { lookup(name: string): unknown };
}
const budgetOf = (environment: Frame) => environment.base.lookup(BUDGET) as StepBudget | undefined;

function onEntry(_expr: unknown, _input: unknown, environment: Frame) {
  const budget = budgetOf(environment);
  if (!budget) return;
  budget.spend(1);
  return budget.pause();
}

function onExit(_expr: unknown, _input: unknown, environment: Frame, result: unknown) {
  if (Array.isArray(result)) budgetOf(environment)?.spend(result.length);
}

/** JSONata builds each regex literal through this engine: a pattern that backtracks super-linearly is refused, not run. */
function CheckedRegExp(pattern: RegExp): RegExp {
  const problem = superLinearRegex(pattern.source, pattern.flags);
  if (problem) throw { code: "UNSAFE_REGEX", message: `Refused: ${problem}` };
  return new RegExp(pattern);
}

/** The first regex literal of a parsed expression that backtracks super-linearly. */
function unsafeRegexIn(node: unknown, seen = new Set<unknown>()): string | undefined {
  if (!node || typeof node !== "object" || seen.has(node)) return undefined;
  seen.add(node);
  if (node instanceof RegExp) return superLinearRegex(node.source, node.flags);
  for (const child of Object.values(node)) {
    const problem = unsafeRegexIn(child, seen);
    if (problem) return problem;
  }
  return undefined;
}

function compile(expression: string): Compiled {
  let expr = compiled.get(expression);
  if (!expr) {
    expr = jsonata(expression, { stack: MAX_EXPRESSION_DEPTH, sequence: MAX_SEQUENCE_ITEMS, RegexEngine: CheckedRegExp as unknown as RegExpConstructor });
    // JSONata looks these hooks up by symbol in the evaluation's frames (its "timeboxExpression" pattern).
    const assign = expr.assign as unknown as (name: symbol, value: unknown) => void;
    assign(Symbol.for("jsonata.__evaluate_entry"), onEntry);
    assign(Symbol.for("jsonata.__evaluate_exit"), onExit);
    if (compiled.size >= MAX_CACHED) compiled.delete(compiled.keys().next().value as string);
    compiled.set(expression, expr);
  }
  return expr;
}

function syntaxError(expression: string): string | undefined {
  try {
    return unsafeRegexIn(compile(expression).ast());
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
  const budget = await stepBudget();
  try {
    return await compile(expression).evaluate(input, { ...bindings, [BUDGET]: budget });
  } catch (e) {
    if (e instanceof ExpressionBudgetExceeded) {
      throw new NodeFailure(BUDGET_EXCEEDED, `JSONata "${expression}" stopped: ${e.message}`, { limit: e.limit, unit: e.unit });
    }
    const guard = GUARD_CODES[(e as { code?: string } | null)?.code ?? ""];
    if (guard) throw new NodeFailure(BUDGET_EXCEEDED, `JSONata "${expression}" stopped: ${guard()}`);
    throw new NodeFailure("EXPRESSION_FAILED", `JSONata "${expression}" failed: ${jsonataMessage(e)}`);
  }
}

/** JSONata's truthiness (empty sequences and strings are false). */
export async function test(expression: string, input: unknown): Promise<boolean> {
  const value = await evaluate(expression, input);
  if (Array.isArray(value)) return value.length > 0 && value.some(Boolean);
  return Boolean(value);
}
