// The hook implementation guides use to check a transaction or batch Bundle before anything of
// it is stored (the composition root lists them; routes/fhir.ts runs them): MHD's ITI-65 rules.
// What a check sees was checked first: `applies` gets a Bundle whose shape holds (bundle-shape.ts:
// entries are objects with a request, resources objects with a resourceType), so it may read the
// envelope freely but a resource's elements only defensively; `check` gets it once every resource
// of a transaction also has R4's shape (validate.ts shapeIssues: arrays, objects and primitives'
// JSON types where R4 has them, no nulls), since one that has not fails the whole transaction
// anyway. Missing or invalid values are left to the check, which may name them in its own codes
// (MHD's XDS error codes) before the store's validation would. A batch's entries fail on their
// own, so a check of batches reads resources as it would unknown data.
import { unprocessable } from "../../platform/errors";
import type { Bundle, Resource } from "./port";
import type { FhirService } from "./service";
import { shapeIssues } from "./validate";

export interface BundleCheck {
  /** Whether this check governs the Bundle (e.g. by its meta.profile). */
  applies(bundle: Bundle): boolean;
  /** Undefined when the Bundle may be processed; otherwise the answer instead (an OperationOutcome). */
  check(bundle: Bundle, store: FhirService): Promise<{ status: number; body: Resource } | undefined>;
}

/** 422, as the store answers it, when a resource of the transaction does not have R4's shape. */
function refuseMisshapen(bundle: Bundle): void {
  for (const [i, entry] of (bundle.entry ?? []).entries()) {
    if (!entry.resource) continue;
    const issues = shapeIssues(entry.resource);
    const at = `Bundle.entry[${i}].resource`;
    if (issues.length) throw unprocessable(`${at}: ${entry.resource.resourceType} does not conform to the R4 definition`, issues.map((d) => ({ ...d, path: d.path.replace(/^[A-Za-z]+/, at) })));
  }
}

/** The first refusal of the checks that govern `bundle` (its shape checked: bundle-shape.ts), or undefined. */
export async function refusalOf(checks: readonly BundleCheck[], bundle: Bundle, store: FhirService): Promise<{ status: number; body: Resource } | undefined> {
  const governing = checks.filter((c) => c.applies(bundle));
  if (governing.length === 0) return undefined;
  if (bundle.type === "transaction") refuseMisshapen(bundle);
  for (const c of governing) {
    const refusal = await c.check(bundle, store);
    if (refusal) return refusal;
  }
  return undefined;
}
