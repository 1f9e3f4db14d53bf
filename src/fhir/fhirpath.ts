// FHIRPath evaluation for search-parameter expressions. Most R4 expressions are plain paths
// (with choice-type casts, where(resolve() is X) or where(x='y')); those run on a compiled
// fast path. Everything else goes to @medplum/core's evaluator (tree-shaken to ~66 KB and
// synchronous, where fhirpath.js is ~1.2 MB and needs async for resolve()); without a schema
// its misses on absent properties cost a scan over every FHIR type name, hence the fast path.
import { type FhirPathAtom, evalFhirPathTyped, parseFhirPath, toTypedValue } from "@medplum/core";
import { isResourceType } from "./definitions";
import { splitTop } from "./expression";
import { ELEMENTS } from "./summary";

type Step = { prop: string } | { choice: string } | { refType: string } | { eqProp: string; eqValue: string };
type Compiled = { kind: "fast"; parts: Step[][] } | { kind: "general"; atom: FhirPathAtom };

const compiled = new Map<string, Compiled>();

const upperFirst = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/** Compiles "Type.a.b.where(...)" (one union member) to steps, or undefined when not a plain path. */
function compilePart(part: string): Step[] | undefined {
  let p = part.trim();
  while (p.startsWith("(") && p.endsWith(")") && splitTop(p.slice(1, -1), "|").length === 1) p = p.slice(1, -1).trim();
  // "X as T" at the end is the same cast as X.as(T).
  const asMatch = /^(.*\S)\s+as\s+(\w+)$/.exec(p);
  if (asMatch) p = `${asMatch[1]}.as(${asMatch[2]})`;
  const tokens = splitTop(p, ".");
  const type = tokens.shift();
  // Only expressions rooted at a resource type; relative ones (composite components) go general.
  if (!type || !isResourceType(type)) return undefined;
  const steps: Step[] = [];
  const path: string[] = [];
  for (const tok of tokens) {
    const resolveIs = /^where\(resolve\(\) is (\w+)\)$/.exec(tok);
    const whereEq = /^where\((\w+)\s*=\s*'([^']*)'\)$/.exec(tok);
    const cast = /^(?:ofType|as)\((\w+)\)$/.exec(tok);
    if (/^[a-z][A-Za-z]*$/.test(tok)) {
      // Only paths the resource's own definition knows: a choice element reads every valueX key.
      path.push(tok);
      const at = path.join(".");
      if (ELEMENTS[type]?.[at]) steps.push({ prop: tok });
      else if (ELEMENTS[type]?.[`${at}[x]`]) steps.push({ choice: tok });
      else return undefined;
    } else if (resolveIs) {
      steps.push({ refType: resolveIs[1]! });
    } else if (whereEq) {
      steps.push({ eqProp: whereEq[1]!, eqValue: whereEq[2]! });
    } else if (cast) {
      // A cast on a choice element selects its typed property: value.as(Quantity) is valueQuantity.
      const last = steps[steps.length - 1];
      if (!last || !("choice" in last)) return undefined;
      const typed = `${last.choice}${upperFirst(cast[1]!)}`;
      steps[steps.length - 1] = { prop: typed };
      path[path.length - 1] = typed;
    } else return undefined;
  }
  return steps;
}

function compile(expression: string): Compiled {
  let c = compiled.get(expression);
  if (!c) {
    const parts = splitTop(expression, "|").map(compilePart);
    c = parts.every((x) => x !== undefined) ? { kind: "fast", parts: parts as Step[][] } : { kind: "general", atom: parseFhirPath(expression) };
    compiled.set(expression, c);
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

/** Why an expression does not parse, or undefined when it does. */
export function fhirpathSyntaxError(expression: string): string | undefined {
  try {
    parseFhirPath(expression);
    return undefined;
  } catch (e) {
    return e instanceof Error ? e.message : String(e);
  }
}

/** Values an expression selects from `input` (a resource or an element of one). */
export function evaluate(expression: string, input: unknown): unknown[] {
  const c = compile(expression);
  if (c.kind === "fast") return c.parts.flatMap((steps) => runSteps(input, steps));
  return evalFhirPathTyped(c.atom, [toTypedValue(input)]).map((v) => v.value);
}
