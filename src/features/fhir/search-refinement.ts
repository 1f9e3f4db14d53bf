// The hook implementation guides use to refine the FHIR search of a type without the store
// knowing them (the composition root lists them; routes/fhir.ts applies them): PDQm limits the
// identifiers a Patient search returns to the requested domains and adds replacing patients.
import type { Bundle, Resource } from "./port";
import type { FhirService } from "./service";

export type SearchRefined =
  /** Answer this instead of searching (e.g. 404 for an unknown identifier domain). */
  | { respond: { status: number; body: Resource } }
  /** Reshape the searchset the store answered. */
  | { shape(bundle: Bundle, store: FhirService): Promise<Bundle> };

export interface SearchRefinement {
  /** The resource types whose type-level searches it refines. */
  types: readonly string[];
  /** The query the store runs instead of `params` (e.g. with a result parameter the guide requires); `params` as they are when absent. */
  query?(params: URLSearchParams): URLSearchParams;
  /** How it refines a search with these parameters, or undefined when it does not (absent: a query rewrite only). */
  refine?(params: URLSearchParams, store: FhirService): Promise<SearchRefined | undefined>;
}

/** The store's answer to a type search with every refinement that applies. */
export async function refinedSearch(refinements: readonly SearchRefinement[], store: FhirService, type: string | undefined, asked: URLSearchParams, strict: boolean): Promise<{ status: number; body: Resource }> {
  const shapes: ((bundle: Bundle, store: FhirService) => Promise<Bundle>)[] = [];
  const applicable = type ? refinements.filter((x) => x.types.includes(type)) : [];
  const params = applicable.reduce((p, r) => r.query?.(p) ?? p, asked);
  for (const r of applicable) {
    const refined = await r.refine?.(params, store);
    if (!refined) continue;
    if ("respond" in refined) return refined.respond;
    shapes.push(refined.shape);
  }
  let bundle = await store.search(type, params, { strict });
  for (const shape of shapes) bundle = await shape(bundle, store);
  return { status: 200, body: bundle };
}
