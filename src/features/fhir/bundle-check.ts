// The hook implementation guides use to check a transaction or batch Bundle before anything of
// it is stored (the composition root lists them; routes/fhir.ts runs them): MHD's ITI-65 rules.
import type { Bundle, Resource } from "./port";
import type { FhirService } from "./service";

export interface BundleCheck {
  /** Whether this check governs the Bundle (e.g. by its meta.profile). */
  applies(bundle: Bundle): boolean;
  /** Undefined when the Bundle may be processed; otherwise the answer instead (an OperationOutcome). */
  check(bundle: Bundle, store: FhirService): Promise<{ status: number; body: Resource } | undefined>;
}

/** The first refusal of the checks that apply, or undefined. */
export async function refusalOf(checks: readonly BundleCheck[], bundle: Bundle, store: FhirService): Promise<{ status: number; body: Resource } | undefined> {
  for (const c of checks) {
    if (!c.applies(bundle)) continue;
    const refusal = await c.check(bundle, store);
    if (refusal) return refusal;
  }
  return undefined;
}
