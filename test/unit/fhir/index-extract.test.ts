// Index extraction's shortcut for unguarded parameters (index-extract.ts, pathRoots): a resource
// without the expression's roots indexes what the general evaluator answers for it, computed once.
import { readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import { evalFhirPathTyped, parseFhirPath, toTypedValue } from "@medplum/core";
import { describe, expect, it } from "vitest";
import { R4_DEFINITIONS } from "../../../src/features/fhir/definitions";
import { extractIndex, tokenValues } from "../../../src/features/fhir/index-extract";
import type { Resource } from "../../../src/features/fhir/port";

const dir = path.join(import.meta.dirname, "../../../node_modules/hl7.fhir.r4.examples");

/** The deceased rows the general evaluator gives, without any shortcut. */
function deceasedByEvaluator(patient: Resource): string[] {
  const expression = R4_DEFINITIONS.searchParamsOf("Patient").find((p) => p.code === "deceased")!.expression!;
  return evalFhirPathTyped(parseFhirPath(expression), [toTypedValue(patient)]).flatMap((v) => tokenValues(v.value).tokens.map(([s, c]) => `${s}|${c}`));
}
const deceasedRows = (patient: Resource) => extractIndex(patient, R4_DEFINITIONS).token.filter((t) => t.code === "deceased").map((t) => `${t.system}|${t.value}`);

describe("unguarded parameters (Patient.deceased)", () => {
  const base: Resource = { resourceType: "Patient", id: "p", name: [{ family: "X" }] };
  it.each([
    ["absent", base, ["|false"]],
    ["deceasedBoolean true", { ...base, deceasedBoolean: true }, ["|true"]],
    ["deceasedBoolean false", { ...base, deceasedBoolean: false }, ["|false"]],
    ["deceasedDateTime", { ...base, deceasedDateTime: "2020-01-01" }, ["|true"]],
  ] as [string, Resource, string[]][])("%s: what the evaluator answers", (_, patient, expected) => {
    expect(deceasedRows(patient)).toEqual(expected);
    expect(deceasedRows(patient)).toEqual(deceasedByEvaluator(patient));
  });

  it("every official Patient example indexes what the evaluator answers", () => {
    let compared = 0;
    for (const file of readdirSync(dir)) {
      if (!file.startsWith("Patient-") || !file.endsWith(".json")) continue;
      const patient = JSON.parse(readFileSync(path.join(dir, file), "utf8")) as Resource;
      if (patient.resourceType !== "Patient") continue;
      expect(deceasedRows(patient), file).toEqual(deceasedByEvaluator(patient));
      compared++;
    }
    expect(compared).toBeGreaterThan(5);
  });
});
