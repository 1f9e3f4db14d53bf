// The FHIRPath fast path must select what @medplum/core's full evaluator selects, for every
// search parameter of every official R4 example (as sets: union de-duplication aside).
import { readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import { evalFhirPathTyped, parseFhirPath, toTypedValue } from "@medplum/core";
import { describe, expect, it } from "vitest";
import { R4_DEFINITIONS } from "../../../src/features/fhir/definitions";
import { evaluate } from "../../../src/features/fhir/fhirpath";
import type { Resource } from "../../../src/features/fhir/port";

const dir = path.join(import.meta.dirname, "../../../node_modules/hl7.fhir.r4.examples");
const asSet = (values: unknown[]) => [...new Set(values.map((v) => JSON.stringify(v)))].sort();

/** Every official example resource, with its file name. */
function* examples(): Generator<[string, Resource]> {
  for (const file of readdirSync(dir)) {
    if (!file.endsWith(".json") || file === "package.json") continue;
    const resource = JSON.parse(readFileSync(path.join(dir, file), "utf8")) as Resource;
    if (resource.resourceType) yield [file, resource];
  }
}

describe("FHIRPath fast path", () => {
  it("agrees with the general evaluator on every official example", () => {
    let compared = 0;
    const mismatches: string[] = [];
    for (const [file, resource] of examples()) {
      for (const p of R4_DEFINITIONS.searchParamsOf(resource.resourceType)) {
        if (!p.expression) continue;
        let expected: unknown[];
        try {
          expected = evalFhirPathTyped(parseFhirPath(p.expression), [toTypedValue(resource)]).map((v) => v.value);
        } catch {
          continue;
        }
        const actual = evaluate(p.expression, resource);
        compared++;
        const a = asSet(actual);
        const e = asSet(expected);
        if (JSON.stringify(a) === JSON.stringify(e)) continue;
        // Intended differences, each a superset of the general result: resolve() also recognises
        // absolute references (http://x/Patient/1), and unions keep distinct quantities that
        // medplum's quantity equality merges (1e-245 vs 1e-22; ">60" vs "60" in Observation-f205).
        const superset = e.every((x) => a.includes(x));
        const explained = a.every((x) => e.includes(x) || /"reference":"https?:/.test(x) || /^\{"value":-?[\d.e+-]+,/.test(x));
        if (!superset || !explained) mismatches.push(`${file} ${p.code}: ${p.expression}`);
      }
    }
    expect(compared).toBeGreaterThan(100_000);
    expect(mismatches).toEqual([]);
  }, 120_000);

  it("agrees on composite components, which are relative to their base expression", () => {
    let compared = 0;
    const mismatches: string[] = [];
    for (const [file, resource] of examples()) {
      for (const p of R4_DEFINITIONS.searchParamsOf(resource.resourceType)) {
        if (p.type !== "composite" || !p.expression) continue;
        for (const base of evaluate(p.expression, resource)) {
          for (const c of p.components ?? []) {
            let expected: unknown[];
            try {
              expected = evalFhirPathTyped(parseFhirPath(c.expression), [toTypedValue(base)]).map((v) => v.value);
            } catch {
              continue; // e.g. %resource, which the store does not index either
            }
            compared++;
            if (JSON.stringify(asSet(evaluate(c.expression, base, p.expression))) !== JSON.stringify(asSet(expected))) {
              mismatches.push(`${file} ${p.code}: ${c.expression}`);
            }
          }
        }
      }
    }
    expect(compared).toBeGreaterThan(200);
    expect(mismatches).toEqual([]);
  }, 120_000);
});
