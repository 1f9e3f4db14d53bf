// FHIRPath evaluation for search-parameter expressions. Most R4 expressions are plain paths
// (with choice-type casts, where(resolve() is X) or where(x='y')); those run on a compiled
// fast path. Everything else goes to @medplum/core's evaluator (tree-shaken to ~66 KB and
// synchronous, where fhirpath.js is ~1.2 MB and needs async for resolve()); without a schema
// its misses on absent properties cost a scan over every FHIR type name, hence the fast path.
import { type Atom, type FhirPathAtom, FunctionAtom, LiteralAtom, evalFhirPathTyped, parseFhirPath, toTypedValue } from "@medplum/core";
import { superLinearRegex } from "../../platform/regex-safety";
import type { StepBudget } from "../../platform/step-budget";
import { isResourceType } from "./definitions";
import { splitTop } from "./expression";
import { ELEMENTS } from "./summary";

type Step = { prop: string } | { choice: string } | { refType: string } | { eqProp: string; eqValue: string };
type Compiled = { kind: "fast"; parts: Step[][] } | { kind: "general"; atom: FhirPathAtom };

const compiled = new Map<string, Compiled>();

const upperFirst = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/** Where a path stands: an element path inside a type's definition (a resource or a datatype). */
interface Context {
  type: string;
  path: string[];
}

/**
 * Resolves one element name below `at`: an element of the same definition, or of the datatype
 * the current element has (Observation.meta.profile reads Meta's "profile").
 */
function resolveElement(at: Context, name: string): { step: Step; next: Context } | undefined {
  const defs = ELEMENTS[at.type] ?? {};
  const key = [...at.path, name].join(".");
  if (defs[key]) return { step: { prop: name }, next: { type: at.type, path: [...at.path, name] } };
  if (defs[`${key}[x]`]) return { step: { choice: name }, next: { type: at.type, path: [...at.path, `${name}[x]`] } };
  const datatype = at.path.length ? defs[at.path.join(".")]?.[2].replace(/\(.*$/, "") : undefined;
  return datatype && ELEMENTS[datatype] && datatype !== at.type ? resolveElement({ type: datatype, path: [] }, name) : undefined;
}

/**
 * Compiles "Type.a.b.where(...)" (one union member) to steps, or undefined when not a plain path.
 * A relative expression (a composite's component) starts at `context`, its base's position.
 */
function compilePart(part: string, context?: Context): { steps: Step[]; at: Context } | undefined {
  let p = part.trim();
  while (p.startsWith("(") && p.endsWith(")") && splitTop(p.slice(1, -1), "|").length === 1) p = p.slice(1, -1).trim();
  // "X as T" at the end is the same cast as X.as(T).
  const asMatch = /^(.*\S)\s+as\s+(\w+)$/.exec(p);
  if (asMatch) p = `${asMatch[1]}.as(${asMatch[2]})`;
  const tokens = splitTop(p, ".");
  let at: Context;
  if (tokens[0] && isResourceType(tokens[0])) at = { type: tokens.shift()!, path: [] };
  else if (context) at = context;
  else return undefined;
  const steps: Step[] = [];
  for (const tok of tokens) {
    const resolveIs = /^where\(resolve\(\) is (\w+)\)$/.exec(tok);
    const whereEq = /^where\((\w+)\s*=\s*'([^']*)'\)$/.exec(tok);
    const cast = /^(?:ofType|as)\((\w+)\)$/.exec(tok);
    if (/^[a-z][A-Za-z]*$/.test(tok)) {
      // Only paths the definitions know: a choice element reads every valueX key.
      const resolved = resolveElement(at, tok);
      if (!resolved) return undefined;
      steps.push(resolved.step);
      at = resolved.next;
    } else if (resolveIs) {
      steps.push({ refType: resolveIs[1]! });
    } else if (whereEq) {
      steps.push({ eqProp: whereEq[1]!, eqValue: whereEq[2]! });
    } else if (cast) {
      // A cast on a choice element selects its typed property: value.as(Quantity) is valueQuantity.
      const last = steps[steps.length - 1];
      if (!last || !("choice" in last)) return undefined;
      const type = cast[1]!;
      steps[steps.length - 1] = { prop: `${last.choice}${upperFirst(type)}` };
      at = { type: ELEMENTS[type] ? type : upperFirst(type), path: [] };
    } else return undefined;
  }
  return { steps, at };
}

/** Where a (single-member, plain) base expression leads, for compiling its relative components. */
function contextOf(base: string | undefined): Context | undefined {
  if (!base) return undefined;
  const parts = splitTop(base, "|");
  return parts.length === 1 ? compilePart(parts[0]!)?.at : undefined;
}

function compile(expression: string, base?: string): Compiled {
  const cacheKey = base ? `${base}\u0000${expression}` : expression;
  let c = compiled.get(cacheKey);
  if (!c) {
    const context = contextOf(base);
    const parts = splitTop(expression, "|").map((x) => compilePart(x, context)?.steps);
    c = parts.every((x) => x !== undefined) ? { kind: "fast", parts: parts as Step[][] } : { kind: "general", atom: parseFhirPath(expression) };
    compiled.set(cacheKey, c);
  }
  return c;
}

const referenceType = (ref: unknown): string | undefined => {
  if (typeof ref !== "string") return undefined;
  const segs = ref.split("/_history/")[0]!.split("/");
  return segs.length >= 2 ? segs[segs.length - 2] : undefined;
};

function push(into: unknown[], x: unknown) {
  if (Array.isArray(x)) {
    for (const y of x) if (y !== null && y !== undefined) into.push(y);
  } else if (x !== undefined && x !== null) into.push(x);
}

function runSteps(input: unknown, steps: Step[]): unknown[] {
  let cur: unknown[] = [input];
  for (const step of steps) {
    const next: unknown[] = [];
    for (const v of cur) {
      if (!v || typeof v !== "object") continue;
      const o = v as Record<string, unknown>;
      if ("prop" in step) push(next, o[step.prop]);
      else if ("choice" in step) {
        for (const k in o) if (k.startsWith(step.choice) && k.charCodeAt(step.choice.length) < 91) push(next, o[k]);
      } else if ("refType" in step) {
        if (referenceType(o.reference) === step.refType) next.push(v);
      } else if (o[step.eqProp] === step.eqValue) next.push(v);
    }
    cur = next;
  }
  return cur;
}

/** Why an expression does not parse, or may not run as an organization's expression (see countSteps), or undefined. */
export function fhirpathSyntaxError(expression: string): string | undefined {
  try {
    countSteps(parseFhirPath(expression));
    return undefined;
  } catch (e) {
    return e instanceof Error ? e.message : String(e);
  }
}

/**
 * Values an expression selects from `input` (a resource or an element of one); `base` is the
 * expression that selected `input`, when `expression` is relative to it (composite components).
 */
export function evaluate(expression: string, input: unknown, base?: string): unknown[] {
  const c = compile(expression, base);
  if (c.kind === "fast") return c.parts.flatMap((steps) => runSteps(input, steps));
  return evalFhirPathTyped(c.atom, [toTypedValue(input)]).map((v) => v.value);
}

/**
 * What one FHIRPath atom evaluation (or item it yields) spends: @medplum/core's evaluator takes
 * about eight times the CPU of a JSONata step per item (measured on nested select()s), and it
 * cannot hand the thread back while it runs, so its share of the budget is smaller.
 */
const FHIRPATH_STEP_WEIGHT = 8;

/** The budget the running budgeted evaluation spends (evaluation is synchronous, so one at a time). */
let spending: StepBudget | undefined;
const counted = new Map<string, FhirPathAtom>();

/** FHIRPath's functions whose first argument is a regular expression. */
const REGEX_FUNCTIONS = new Set(["matches", "matchesFull", "replaceMatches"]);

/** A regex argument must be a literal the analyser can check (regex-safety.ts) before it runs. */
function checkRegexArgument(atom: FunctionAtom) {
  const pattern = atom.args[0];
  if (!(pattern instanceof LiteralAtom) || typeof pattern.value.value !== "string") {
    throw new Error(`The pattern of ${atom.name}() must be a string literal`);
  }
  const problem = superLinearRegex(pattern.value.value);
  if (problem) throw new Error(`Refused: ${problem}`);
}

/**
 * Makes every atom of a parsed expression spend a step per evaluation and one per item it yields;
 * throws for a regex argument that is computed or backtracks super-linearly.
 */
function countSteps(root: FhirPathAtom): FhirPathAtom {
  const seen = new WeakSet<object>();
  const visit = (value: unknown) => {
    if (!value || typeof value !== "object" || seen.has(value)) return;
    seen.add(value);
    if (Array.isArray(value)) return value.forEach(visit);
    const atom = value as Atom;
    if (atom instanceof FunctionAtom && REGEX_FUNCTIONS.has(atom.name)) checkRegexArgument(atom);
    if (typeof atom.eval === "function") {
      const inner = atom.eval;
      // Per instance, so the atoms' classes (which the evaluator tests with instanceof) stay.
      atom.eval = function (this: Atom, context, input) {
        spending?.spend((1 + input.length) * FHIRPATH_STEP_WEIGHT);
        const out = inner.call(this, context, input);
        spending?.spend(out.length * FHIRPATH_STEP_WEIGHT);
        return out;
      };
    }
    for (const child of Object.values(value)) visit(child);
  };
  visit(root);
  return root;
}

/**
 * `evaluate` for an expression an organization wrote (the data.fhirpath node): every atom's
 * evaluation spends `budget`, which throws ExpressionBudgetExceeded when it runs out.
 */
export function evaluateBudgeted(expression: string, input: unknown, budget: StepBudget): unknown[] {
  let atom = counted.get(expression);
  if (!atom) {
    atom = countSteps(parseFhirPath(expression));
    if (counted.size >= 1000) counted.delete(counted.keys().next().value as string);
    counted.set(expression, atom);
  }
  const typed = toTypedValue(input);
  spending = budget;
  try {
    // FHIRPath's environment variables (%resource, %rootResource, %context): the node's input.
    return evalFhirPathTyped(atom, [typed], { "%resource": typed, "%rootResource": typed, "%context": typed }).map((v) => v.value);
  } catch (e) {
    // The evaluator rewraps what the atoms throw in an Error of its own.
    throw budget.exceeded() ?? e;
  } finally {
    spending = undefined;
  }
}
