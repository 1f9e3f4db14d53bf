// PDQm ITI-78 behaviours on top of the store's Patient search:
// - identifier-domain filtering: `identifier=system|` limits the identifiers each returned Patient
//   carries to the requested domains; a domain no patient of the org has → 404 with a warning
//   OperationOutcome `not-found`, "targetSystem not found" (ITI-78);
// - a Patient replaced in a merge (link.type replaced-by, as HL7 A40 leaves it) comes with the
//   patient that replaces it, as an `include` entry;
// - Bundle.total on every page: a search that does not ask `_total` is counted as `_total=estimate`
//   (exact up to the store's counting bound of 10,000 matches, left out past it, as FHIR allows);
//   without it the store gives a total only when one page holds every match.
import type { SearchRefinement } from "../../../features/fhir";
import type { Bundle, BundleEntry, Resource } from "../../../platform/fhir-resource";

type Identifier = { system?: string };
type Link = { type?: string; other?: { reference?: string } };

/** The systems of `identifier=system|` values (a domain, not an identifier). */
function domainsOf(params: URLSearchParams): string[] {
  return params
    .getAll("identifier")
    .flatMap((v) => v.split(","))
    .filter((v) => /^[^|]+\|$/.test(v))
    .map((v) => v.slice(0, -1));
}

const mapMatches = (bundle: Bundle, f: (r: Resource) => Resource): Bundle => ({
  ...bundle,
  entry: bundle.entry?.map((e) => (e.resource?.resourceType === "Patient" && e.search?.mode !== "include" ? { ...e, resource: f(e.resource) } : e)),
});

export const identifierDomains: SearchRefinement = {
  types: ["Patient"],
  async refine(params, store) {
    const domains = domainsOf(params);
    if (domains.length === 0) return undefined;
    for (const domain of domains) {
      if ((await store.matchIds("Patient", `identifier=${encodeURIComponent(`${domain}|`)}`, 1)).length === 0) {
        return {
          respond: {
            status: 404,
            body: { resourceType: "OperationOutcome", issue: [{ severity: "warning", code: "not-found", diagnostics: "targetSystem not found", expression: [`identifier=${domain}|`] }] },
          },
        };
      }
    }
    return {
      shape: async (bundle) =>
        mapMatches(bundle, (r) => ({ ...r, identifier: ((r.identifier as Identifier[] | undefined) ?? []).filter((i) => i.system !== undefined && domains.includes(i.system)) })),
    };
  },
};

export const replacedBy: SearchRefinement = {
  types: ["Patient"],
  async refine() {
    return {
      async shape(bundle, store) {
        const present = new Set((bundle.entry ?? []).map((e) => `${e.resource?.resourceType}/${e.resource?.id}`));
        const wanted = new Set<string>();
        for (const e of bundle.entry ?? []) {
          for (const l of (e.resource?.link as Link[] | undefined) ?? []) {
            const ref = l.other?.reference;
            if (l.type === "replaced-by" && ref?.startsWith("Patient/") && !present.has(ref)) wanted.add(ref.slice("Patient/".length));
          }
        }
        if (wanted.size === 0) return bundle;
        const added: BundleEntry[] = [];
        for (const id of wanted) {
          try {
            const resource = await store.read("Patient", id);
            added.push({ fullUrl: `${store.baseUrl}/Patient/${id}`, resource, search: { mode: "include" } });
          } catch {
            // a replacing patient that is gone or not visible is left out, as any unresolvable include
          }
        }
        return { ...bundle, entry: [...(bundle.entry ?? []), ...added] };
      },
    };
  },
};

export const countedTotals: SearchRefinement = {
  types: ["Patient"],
  query(params) {
    if (params.has("_total")) return params;
    const counted = new URLSearchParams(params);
    counted.set("_total", "estimate");
    return counted;
  },
};

export const PDQM_SEARCH_REFINEMENTS: readonly SearchRefinement[] = [countedTotals, identifierDomains, replacedBy];
