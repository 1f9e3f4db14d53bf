// What a search tells the access policy and takes from it (access-policy.ts): the search
// parameters it uses, judged before it runs (a policy that hides a field refuses a search by it),
// and the policy's search scopes as filters of the query itself, so paging and totals count only
// what the policy shows.
import type { SearchParamUse, SearchScope } from "../access-policy";
import type { FhirDefinitions, SearchParamDef } from "../definitions";
import { type Filter, type SearchRequest, parseSearch, referenceParams } from "./parse";

/** The scopes as filters (one each, all holding), their branches' queries parsed as strict searches of their types. */
export function scopeFilters(definitions: FhirDefinitions, scopes: readonly SearchScope[], types: readonly string[]): Filter[] {
  return scopes.map((scope) => ({
    kind: "scope",
    // A branch of another type than the searched ones admits nothing here.
    branches: scope.anyOf
      .filter((b) => !b.resourceType || !types.length || types.includes(b.resourceType))
      .map((b) => ({
        ...(b.resourceType ? { type: b.resourceType } : {}),
        filters: b.query && b.resourceType ? parseSearch(definitions, b.resourceType, b.query, true).filters : [],
        ...(b.patients ? { patients: b.patients } : {}),
      })),
  }));
}

/** The parameters a search filters, sorts and includes by, each on its own type (a chain's target, a _has' source). */
export function searchParamsOf(definitions: FhirDefinitions, req: SearchRequest): SearchParamUse[] {
  const out: SearchParamUse[] = [];
  const use = (resourceType: string, def: SearchParamDef | undefined) => {
    if (def?.expression) out.push({ resourceType, code: def.code, expression: def.expression });
  };
  const type = req.types.length === 1 ? req.types[0]! : undefined;
  const walk = (t: string | undefined, f: Filter) => {
    switch (f.kind) {
      case "param":
      case "missing":
        if (t) use(t, f.def);
        return;
      case "chain":
        if (t) use(t, f.def);
        for (const inner of f.inner) walk(inner.type, inner.filter);
        return;
      case "has":
        use(f.sourceType, definitions.searchParam(f.sourceType, f.refCode));
        walk(f.sourceType, f.inner);
        return;
      case "scope":
        return;
    }
  };
  for (const f of req.filters) walk(type, f);
  if (type) for (const k of req.sort) use(type, k.def);
  for (const spec of [...req.include, ...req.revinclude]) {
    if (spec.sourceType === "*") continue;
    const params = spec.param === "*" ? referenceParams(definitions, spec.sourceType) : [definitions.searchParam(spec.sourceType, spec.param)];
    for (const def of params) use(spec.sourceType, def);
  }
  return out;
}
