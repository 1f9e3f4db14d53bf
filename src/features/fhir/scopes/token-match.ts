// Whether a resource meets a granular scope's token conditions (`?category=...&code=...`). The
// parameters granular scopes support (syntax.ts, GRANULAR_PARAMS) are elements of the same name
// on every resource type that has them, so the element is read directly, not through the index.
import type { Resource } from "../port";
import type { TokenCondition } from "./syntax";

interface Token {
  system?: string;
  code?: string;
}

/** Every condition holds (they come from one scope: AND). */
export function meetsConditions(resource: Resource, conditions: readonly TokenCondition[]): boolean {
  return conditions.every((c) => tokensOf(resource[c.param]).some((t) => matches(t, c)));
}

function matches(token: Token, c: TokenCondition): boolean {
  if (c.system !== undefined && (c.system === "" ? token.system !== undefined : token.system !== c.system)) return false;
  return c.code === undefined || token.code === c.code;
}

/** The codings of a CodeableConcept, a Coding, a code, or an array of them. */
function tokensOf(value: unknown): Token[] {
  if (Array.isArray(value)) return value.flatMap(tokensOf);
  if (typeof value === "string") return [{ code: value }];
  if (!value || typeof value !== "object") return [];
  const v = value as { coding?: unknown; system?: unknown; code?: unknown };
  if (Array.isArray(v.coding)) return v.coding.flatMap(tokensOf);
  return typeof v.code === "string" ? [{ code: v.code, ...(typeof v.system === "string" ? { system: v.system } : {}) }] : [];
}
