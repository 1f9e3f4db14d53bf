// The hook implementation guides use to hold a single write (create, update, conditional
// update, patch, and each entry of a batch) to their rules before it is stored: MHD's Folder
// rules on a List updated on its own. The composition root lists them (src/main/plugins.ts)
// in the FhirExtensions every store is built with. A transaction is checked as a whole by the
// bundle checks instead (bundle-check.ts): its entries may name each other before any is stored.
import type { ApiError } from "../../platform/errors";
import type { Resource } from "./port";
import type { FhirService } from "./service";

export interface WriteCheck {
  /** The resource types it governs. */
  types: readonly string[];
  /** Undefined when the resource may be stored (the stored version, if any, is still readable); otherwise the refusal. */
  check(resource: Resource, store: FhirService): Promise<ApiError | undefined>;
}

/** Throws the first refusal of the `checks` governing the resource's type (null: a delete, which none governs). */
export async function checkWrite(checks: readonly WriteCheck[], resource: Resource | null, store: FhirService): Promise<void> {
  if (!resource) return;
  for (const c of checks) {
    if (!c.types.includes(resource.resourceType)) continue;
    const refusal = await c.check(resource, store);
    if (refusal) throw refusal;
  }
}
