// What the FHIR store adds to an org's context (src/platform/org-context.ts); src/main/context.ts builds it.
import type { Principal } from "../tenancy";
import type { FhirExtensions } from "./extensions";
import type { FhirService } from "./service";
import type { FhirStoreOptions } from "./store-options";

declare module "../../platform/org-context" {
  interface OrgContext {
    /** The org's FHIR store acting as `principal` (who must belong to this org), with the deployment's FHIR extensions unless `options` names others. */
    fhir(principal: Principal, options?: Partial<FhirStoreOptions>): FhirService;
    /** What implementation guides add to the store (src/main/catalogs.ts), for stores built without the org's consent policy. */
    readonly fhirExtensions: FhirExtensions;
  }
}
