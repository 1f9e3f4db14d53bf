// Which events an endpoint receives: its `event_types`, each an event type of the catalog or a
// pattern. Patterns: `*` alone (every event); a trailing `.*` (every type under the prefix:
// `alert.*`, `fhir.*`, `fhir.Observation.*`); a `*` segment inside (`fhir.*.deleted`: one segment,
// any resource type). A pattern must match at least one type of the catalog, so a typo is refused.
import type { FieldError } from "../../platform/errors";
import { FHIR_ACTIONS, FIXED_EVENT_TYPES, type IsResourceType, isEventType } from "./catalog";

/** Does `pattern` take events of `type`? */
export function matches(pattern: string, type: string): boolean {
  if (pattern === "*" || pattern === type) return true;
  const p = pattern.split(".");
  const t = type.split(".");
  for (let i = 0; i < p.length; i++) {
    const seg = p[i];
    if (seg === "*" && i === p.length - 1) return t.length > i;
    if (i >= t.length) return false;
    if (seg !== "*" && seg !== t[i]) return false;
  }
  return p.length === t.length;
}

export function subscribed(eventTypes: readonly string[], type: string): boolean {
  return eventTypes.some((p) => matches(p, type));
}

const SEGMENT = /^(\*|[A-Za-z][A-Za-z0-9_]{0,63})$/;

/** A representative of the types `pattern` could take, to check it can match anything: the catalog's fixed types and FHIR changes of any resource type. */
function canMatch(pattern: string, isResourceType: IsResourceType): boolean {
  if (FIXED_EVENT_TYPES.some((t) => matches(pattern, t))) return true;
  const p = pattern.split(".");
  if (p[0] !== "fhir" && p[0] !== "*") return false;
  const resourceType = p[1];
  if (resourceType !== undefined && resourceType !== "*" && !isResourceType(resourceType)) return false;
  return FHIR_ACTIONS.some((a) => matches(pattern, `fhir.${resourceType === undefined || resourceType === "*" ? "Patient" : resourceType}.${a}`));
}

/** Problems with an endpoint's `event_types` (each at `event_types[i]`): empty or unknown types and patterns that match nothing. */
export function eventTypeProblems(eventTypes: readonly string[], isResourceType: IsResourceType): FieldError[] {
  const problems: FieldError[] = [];
  eventTypes.forEach((type, i) => {
    const path = `event_types[${i}]`;
    const segments = type.split(".");
    if (!segments.every((s) => SEGMENT.test(s))) problems.push({ path, message: `${JSON.stringify(type)} is not an event type or pattern (dot-separated names, * for a whole segment)` });
    else if (!type.includes("*") && !isEventType(type, isResourceType)) problems.push({ path, message: `${type} is not an event type (GET /api/v1/webhook-event-types lists them)` });
    else if (type.includes("*") && !canMatch(type, isResourceType)) problems.push({ path, message: `${type} matches no event type (GET /api/v1/webhook-event-types lists them)` });
  });
  if (new Set(eventTypes).size !== eventTypes.length) problems.push({ path: "event_types", message: "lists a type twice" });
  return problems;
}
