// FHIRPath evaluation for search-parameter expressions, through @medplum/core's evaluator
// (tree-shaken to ~66 KB and synchronous, where fhirpath.js is ~1.2 MB and needs async
// for resolve()). Parsed expressions are cached per isolate.
import { type FhirPathAtom, evalFhirPathTyped, parseFhirPath, toTypedValue } from "@medplum/core";

const parsed = new Map<string, FhirPathAtom>();

function atom(expression: string): FhirPathAtom {
  let a = parsed.get(expression);
  if (!a) {
    a = parseFhirPath(expression);
    parsed.set(expression, a);
  }
  return a;
}

/** Values an expression selects from `input` (a resource or an element of one). */
export function evaluate(expression: string, input: unknown): unknown[] {
  return evalFhirPathTyped(atom(expression), [toTypedValue(input)]).map((v) => v.value);
}
