// Entry point of the FHIR store for the rest of the service: a FhirPort bound to one
// organization and principal (audited like any API request).
import type { Principal } from "../tenancy/auth/permissions";
import type { Env } from "../../platform/env";
import { type FhirStoreOptions, FhirService } from "./service";

export type { FhirPort } from "./port";
export { FhirService, type FhirStoreOptions } from "./service";

export function fhirStoreFor(env: Env, principal: Principal, options: FhirStoreOptions = {}): FhirService {
  return new FhirService(env, principal, options);
}
