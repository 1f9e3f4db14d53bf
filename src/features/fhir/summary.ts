// _summary and _elements: trims a resource to its summary elements (isSummary in the base
// StructureDefinition) or to the listed elements, marking it SUBSETTED as FHIR requires.
import elementsJson from "./generated/elements.json";
import type { Resource } from "./port";
import { lookupTables } from "../../platform/object-keys";

/** [min, max, types, requiredCodes | 0, isSummary] per relative element path. */
export type ElementInfo = [number, number, string, string[] | 0, 0 | 1];
export const ELEMENTS = lookupTables(elementsJson as unknown as Record<string, Record<string, ElementInfo>>);

const SUBSETTED = { system: "http://terminology.hl7.org/CodeSystem/v3-ObservationValue", code: "SUBSETTED" };
const ALWAYS = new Set(["resourceType", "id", "meta"]);

function topLevelName(key: string, type: string): string | undefined {
  const defs = ELEMENTS[type] ?? {};
  if (defs[key]) return key;
  // value[x] elements appear in instances as valueQuantity etc.
  return Object.keys(defs).find((k) => k.endsWith("[x]") && !k.includes(".") && key.startsWith(k.slice(0, -3)));
}

function subset(resource: Resource, keep: (key: string) => boolean): Resource {
  const out: Resource = { resourceType: resource.resourceType };
  for (const [k, v] of Object.entries(resource)) if (ALWAYS.has(k) || keep(k)) out[k] = v;
  out.meta = { ...resource.meta, tag: [...(resource.meta?.tag ?? []), SUBSETTED] };
  return out;
}

export function shapeResource(resource: Resource, summary?: string, elements?: string[]): Resource {
  const type = resource.resourceType;
  if (summary === "true") {
    return subset(resource, (k) => {
      const name = topLevelName(k, type);
      return name !== undefined && ELEMENTS[type]?.[name]?.[4] === 1;
    });
  }
  if (summary === "text") return subset(resource, (k) => k === "text" || (ELEMENTS[type]?.[topLevelName(k, type) ?? ""]?.[0] ?? 0) > 0);
  if (summary === "data") return subset(resource, (k) => k !== "text");
  if (elements?.length) {
    const wanted = new Set(elements);
    return subset(resource, (k) => wanted.has(k) || wanted.has(topLevelName(k, type) ?? "") || wanted.has((topLevelName(k, type) ?? "").replace("[x]", "")));
  }
  return resource;
}
