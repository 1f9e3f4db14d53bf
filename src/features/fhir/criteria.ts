// A FHIR search evaluated on one resource in memory: an R4 Subscription's criteria, the
// Backport IG's filter criteria and an access policy's rule criteria. Parsed with
// @medplum/core's parseSearchRequest and matched with
// its matchesSearchRequest, over R4's search parameters (the store's definitions, taught to
// @medplum/core's schema the first time each is used). Its matcher evaluates token, string, uri,
// reference and date parameters; a criteria using another type (number, quantity, composite) or a
// chain, _has or a modifier it cannot evaluate is refused on write rather than never matching.
import { type SearchRequest, indexSearchParameter, matchesSearchRequest, parseSearchRequest } from "@medplum/core";
import type { Resource as MedplumResource } from "@medplum/fhirtypes";
import { R4_DEFINITIONS, isResourceType } from "./definitions";
import type { Resource } from "./port";

export interface Criteria {
  text: string;
  resourceType: string;
  request: SearchRequest;
}

const MATCHED_TYPES = new Set(["token", "string", "uri", "reference", "date"]);
/** Result parameters mean nothing for one resource; they are ignored rather than refused. */
const RESULT_PARAMS = new Set(["_count", "_sort", "_include", "_revinclude", "_summary", "_elements", "_total", "_format", "_pretty"]);
const MATCHED_MODIFIERS = new Set(["", "not", "missing", "exact", "contains"]);

const taught = new Set<string>();

/** Teaches @medplum/core's schema one R4 parameter (once per isolate); false when R4 has none of that name. */
function teach(type: string, code: string): string | undefined {
  const key = `${type}.${code}`;
  if (taught.has(key)) return undefined;
  const def = R4_DEFINITIONS.searchParam(type, code);
  if (!def) return `${type} has no search parameter ${code}`;
  if (!MATCHED_TYPES.has(def.type)) return `${type}?${code} is a ${def.type} parameter, which cannot be evaluated on one resource (token, string, uri, reference and date can be)`;
  indexSearchParameter({ resourceType: "SearchParameter", code, base: [type as never], type: def.type as never, expression: def.expression, ...(def.targets ? { target: def.targets as never } : {}), status: "active", name: code, url: `http://hl7.org/fhir/SearchParameter/${type}-${code}`, description: code });
  taught.add(key);
  return undefined;
}

/** `Type?query`; `types`: the resource types it may search (a topic's), and the type of a bare query when there is one. */
export function parseCriteria(text: string, types?: readonly string[]): Criteria | { issue: string } {
  const trimmed = text.trim();
  const at = trimmed.indexOf("?");
  let type = at < 0 ? trimmed : trimmed.slice(0, at);
  let query = at < 0 ? "" : trimmed.slice(at + 1);
  if (at < 0 && trimmed.includes("=") && types?.length === 1) {
    type = types[0]!;
    query = trimmed;
  }
  if (!type || !isResourceType(type)) return { issue: `${type || "(empty)"} is not a resource type` };
  if (types && !types.includes(type)) return { issue: `the topic's focus is ${types.join(", ")}, not ${type}` };
  const params = new URLSearchParams(query);
  for (const [name] of params) {
    const [code, modifier = ""] = name.split(":");
    if (RESULT_PARAMS.has(code!)) continue;
    if (name.includes(".") || code!.startsWith("_has")) return { issue: `${name}: chained and _has parameters cannot be evaluated on one resource` };
    if (!MATCHED_MODIFIERS.has(modifier) && !isResourceType(modifier)) return { issue: `${name}: the :${modifier} modifier cannot be evaluated on one resource` };
    const refusal = teach(type, code!);
    if (refusal) return { issue: refusal };
  }
  for (const code of RESULT_PARAMS) params.delete(code);
  try {
    return { text: trimmed, resourceType: type, request: parseSearchRequest(`${type}?${params.toString()}`) };
  } catch (e) {
    return { issue: e instanceof Error ? e.message : String(e) };
  }
}

export function matchesCriteria(criteria: Criteria, resource: Resource): boolean {
  return matchesSearchRequest(resource as MedplumResource, criteria.request);
}
