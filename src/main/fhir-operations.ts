// The one list of FHIR operations the service offers: the store's own, Bulk Data export's,
// and each standard's (src/standards/<name>/ declares its operations; add them here). The
// FHIR routes, the CapabilityStatement and the OpenAPI document all read this registry.
import { exportOperations } from "../features/export/operations";
import { coreOperations } from "../features/fhir/operations/core";
import type { AnyOperation } from "../features/fhir/operations/operation";
import { OperationRegistry } from "../features/fhir/operations/registry";
import { PDQM_OPERATIONS } from "../standards/ihe/pdqm/operations";
import { IPS_OPERATIONS } from "../standards/ips/operation";

export const FHIR_OPERATIONS: readonly AnyOperation[] = [...coreOperations, ...exportOperations, ...IPS_OPERATIONS, ...PDQM_OPERATIONS];

/** The registry of `operations` (tests add their own to the defaults). */
export function fhirOperationRegistry(operations: readonly AnyOperation[] = FHIR_OPERATIONS): OperationRegistry {
  return new OperationRegistry(operations);
}
