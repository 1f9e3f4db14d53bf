// Entry point of the FHIR store for the rest of the service: a FhirPort bound to one
// organization and principal (audited like any API request).
import type { Principal } from "../tenancy/auth/permissions";
import type { OrgData } from "../../platform/org-data";
import { type FhirStoreOptions, FhirService } from "./service";

export type { FhirPort } from "./port";
export { FhirService, type FhirStoreOptions } from "./service";
/** Whether a search would be answered, without running it (search/check.ts). */
export { checkSearch } from "./search/check";
/** Whether a name is a resource type of the store's definitions (the copilot's generated mappings). */
export { isResourceType } from "./definitions";

export function fhirStoreFor(data: OrgData, principal: Principal, options: FhirStoreOptions = {}): FhirService {
  return new FhirService(data, principal, options);
}
