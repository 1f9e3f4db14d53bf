// What the FHIR store adds to an org's context (src/platform/org-context.ts); src/main/context.ts builds it.
import type { Principal } from "../tenancy/auth/permissions";
import type { FhirService, FhirStoreOptions } from "./service";

declare module "../../platform/org-context" {
  interface OrgContext {
    /** The org's FHIR store acting as `principal` (who must belong to this org). */
    fhir(principal: Principal, options?: FhirStoreOptions): FhirService;
  }
}
