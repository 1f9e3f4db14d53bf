// Code mapping through a FHIR ConceptMap (inline, or read from the store), in
// the spirit of $translate: source system+code in, target codings out.
import { z } from "zod";
import type { Resource } from "../../fhir";
import { NodeFailure } from "../node-failure";
import { defineNode } from "../node-type";
import { evaluate, jsonataExpression } from "./expression";

interface ConceptMapGroup {
  source?: string;
  target?: string;
  element?: { code?: string; display?: string; target?: { code?: string; display?: string; equivalence?: string }[] }[];
  unmapped?: { mode?: string; code?: string; display?: string };
}

export interface Translation {
  system?: string;
  code: string;
  display?: string;
  equivalence: string;
}

/** Targets for a code; "unmatched" equivalences are not translations. */
export function translate(conceptMap: Resource, system: string | undefined, code: string): Translation[] {
  const out: Translation[] = [];
  for (const group of (conceptMap.group as ConceptMapGroup[] | undefined) ?? []) {
    if (system && group.source && group.source !== system) continue;
    const element = group.element?.find((e) => e.code === code);
    for (const t of element?.target ?? []) {
      const equivalence = t.equivalence ?? "equivalent";
      if (t.code && equivalence !== "unmatched" && equivalence !== "disjoint") {
        out.push({ system: group.target, code: t.code, display: t.display, equivalence });
      }
    }
    if (!element && group.unmapped?.mode === "fixed" && group.unmapped.code) {
      out.push({ system: group.target, code: group.unmapped.code, display: group.unmapped.display, equivalence: "inexact" });
    }
    if (!element && group.unmapped?.mode === "provided") out.push({ system: group.target, code, equivalence: "equal" });
  }
  return out;
}

export const conceptMapNode = defineNode({
  id: "data.concept_map",
  name: "Code mapping (ConceptMap)",
  category: "data",
  description: "Translates a code with a FHIR ConceptMap (inline or stored) and emits the mapped codings, or the input on unmapped.",
  keywords: ["conceptmap", "terminology", "translate", "code", "mapping", "loinc", "snomed"],
  inputs: [{ name: "input", type: "json" }],
  outputs: [
    { name: "mapped", type: "json", description: "{input, source: {system, code}, targets[]}" },
    { name: "unmapped", type: "json", description: "The input, when no target was found" },
  ],
  config: z
    .object({
      concept_map: z.record(z.string(), z.unknown()).optional().describe("An inline ConceptMap resource"),
      concept_map_id: z.string().optional().describe("Id of a ConceptMap in the FHIR store"),
      code_expression: jsonataExpression("yields the source code").default("code"),
      system_expression: jsonataExpression("yields the source system").optional(),
    })
    .strict()
    .refine((c) => !!c.concept_map !== !!c.concept_map_id, "Set exactly one of concept_map and concept_map_id"),
  documentation: {
    summary: "Follows ConceptMap group.unmapped (fixed, provided) when a code has no element.",
    example: {
      config: { concept_map: { resourceType: "ConceptMap", group: [{ source: "urn:local", target: "http://loinc.org", element: [{ code: "GLU", target: [{ code: "2345-7", equivalence: "equivalent" }] }] }] } },
      inputs: { input: { system: "urn:local", code: "GLU" } },
      outputs: { mapped: { targets: [{ system: "http://loinc.org", code: "2345-7", equivalence: "equivalent" }] } },
    },
  },
  run: async ({ config, inputs, services }) => {
    const map = config.concept_map ? (config.concept_map as Resource) : await services.fhir().read("ConceptMap", config.concept_map_id as string);
    if (map.resourceType !== "ConceptMap") throw new NodeFailure("NOT_A_CONCEPT_MAP", `Expected a ConceptMap, got ${map.resourceType}`);
    const code = await evaluate(config.code_expression, inputs.input);
    const system = config.system_expression ? await evaluate(config.system_expression, inputs.input) : undefined;
    if (typeof code !== "string") return { outputs: { unmapped: inputs.input } };
    const targets = translate(map, typeof system === "string" ? system : undefined, code);
    if (!targets.length) return { outputs: { unmapped: inputs.input } };
    return { outputs: { mapped: { input: inputs.input, source: { system, code }, targets } } };
  },
});
