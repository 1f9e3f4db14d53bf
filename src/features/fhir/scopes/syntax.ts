// SMART on FHIR scope syntax (App Launch 1.0 and 2.x): `<context>/<type>.<permissions>[?<query>]`.
// v1 permissions (read, write, *) are rewritten to v2 letters (rs, cud, cruds) so the rest of
// the store decides over one vocabulary. Scopes that name no resource (openid, launch...) are
// not errors: a token carries them beside its resource scopes and they grant no data.

/** The SMART v2 permission letters, in the order the syntax requires. */
export const PERMISSIONS = ["c", "r", "u", "d", "s"] as const;
export type Permission = (typeof PERMISSIONS)[number];

export const SCOPE_CONTEXTS = ["patient", "user", "system"] as const;
export type ScopeContext = (typeof SCOPE_CONTEXTS)[number];

/** Token search parameters a granular scope may narrow by (`?category=system|code`). */
export const GRANULAR_PARAMS: readonly string[] = ["category", "code"];

/** One token condition of a granular scope: `system|code`, `code` (any system), `|code` (no system), `system|` (any code). */
export interface TokenCondition {
  param: string;
  system?: string;
  code?: string;
}

export interface ResourceScope {
  /** The scope as granted, for reasons and audits. */
  text: string;
  context: ScopeContext;
  /** A resource type, or "*" for all. */
  resourceType: string;
  permissions: ReadonlySet<Permission>;
  /** All must hold of the resource (an empty list: no narrowing). */
  conditions: TokenCondition[];
}

export type ScopeParse = { kind: "resource"; scope: ResourceScope } | { kind: "other" } | { kind: "invalid"; reason: string };

/** Identity and launch scopes: they ask for context or tokens, never for data. */
const NON_RESOURCE = new Set(["openid", "fhirUser", "profile", "launch", "offline_access", "online_access"]);
const V1_PERMISSIONS: Readonly<Record<string, string>> = { read: "rs", write: "cud", "*": "cruds" };
const SHAPE = /^(patient|user|system)\/([A-Za-z]+|\*)\.([A-Za-z*]+)(?:\?(.*))?$/;

export function parseScope(text: string): ScopeParse {
  if (NON_RESOURCE.has(text) || text.startsWith("launch/")) return { kind: "other" };
  const m = SHAPE.exec(text);
  if (!m) return invalid(text, "expected <patient|user|system>/<ResourceType|*>.<permissions>[?query]");
  const [, context, resourceType, perms, query] = m as unknown as [string, ScopeContext, string, string, string | undefined];
  if (resourceType !== "*" && !/^[A-Z]/.test(resourceType)) return invalid(text, `"${resourceType}" is not a resource type`);
  const v1 = V1_PERMISSIONS[perms];
  if (v1 !== undefined && query !== undefined) return invalid(text, "v1 permissions (read, write, *) take no query; use v2 letters (cruds)");
  const permissions = permissionsOf(v1 ?? perms);
  if (typeof permissions === "string") return invalid(text, permissions);
  const conditions = query === undefined ? [] : conditionsOf(query);
  if (typeof conditions === "string") return invalid(text, conditions);
  return { kind: "resource", scope: { text, context, resourceType, permissions, conditions } };
}

/** Why a scope cannot be granted, or undefined when it can (a token endpoint refuses a request naming one). */
export function scopeError(text: string): string | undefined {
  const parsed = parseScope(text);
  return parsed.kind === "invalid" ? parsed.reason : undefined;
}

/** The resource scopes among `scopes`; the malformed ones grant nothing (a grant fails closed). */
export function resourceScopesOf(scopes: readonly string[]): ResourceScope[] {
  return scopes.flatMap((s) => {
    const parsed = parseScope(s);
    return parsed.kind === "resource" ? [parsed.scope] : [];
  });
}

/** v2 letters: each at most once, in c r u d s order. */
function permissionsOf(letters: string): Set<Permission> | string {
  let at = 0;
  const found = new Set<Permission>();
  for (const ch of letters) {
    const i = PERMISSIONS.indexOf(ch as Permission, at);
    if (i < 0) return `permissions "${letters}" must be read, write, * or letters of cruds, each once, in that order`;
    found.add(PERMISSIONS[i]!);
    at = i + 1;
  }
  return found;
}

function conditionsOf(query: string): TokenCondition[] | string {
  if (!query) return "an empty query narrows nothing; drop the ?";
  const conditions: TokenCondition[] = [];
  for (const [param, value] of new URLSearchParams(query)) {
    if (!GRANULAR_PARAMS.includes(param)) return `granular scopes support only ${GRANULAR_PARAMS.join(", ")}, not "${param}"`;
    if (!value || value === "|") return `"${param}" needs a token value (system|code or code)`;
    const bar = value.indexOf("|");
    if (bar < 0) conditions.push({ param, code: value });
    else conditions.push({ param, system: value.slice(0, bar), ...(bar < value.length - 1 ? { code: value.slice(bar + 1) } : {}) });
  }
  return conditions;
}

function invalid(text: string, why: string): ScopeParse {
  return { kind: "invalid", reason: `invalid scope "${text}": ${why}` };
}
