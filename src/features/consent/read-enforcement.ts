// The consent read policy for one request, as the composition root builds every org store with
// it: the organization's Consents read through its own store (the principal's, audited), its
// policy row read once. An org this isolate recently saw with `enforce_reads` off gets the
// permit-all policy, so its stores keep their fast paths (no parse on export, SQL counts).
import type { OrgData } from "../../platform/org-data";
import { type AccessPolicy, permitAll } from "../fhir";
import { type FhirExtensions, fhirStoreFor } from "../fhir";
import type { Principal } from "../tenancy";
import { knownReadEnforcement, readConsentPolicy } from "./policy-store";
import { consentReadPolicy } from "./read-policy";
import { activeConsentsOf } from "./service";

/** `extensions`: those of the store the policy guards, which reads the Consents too. */
export function consentReadPolicyFor(data: OrgData, principal: Principal, extensions: FhirExtensions, purposes: readonly string[] = []): AccessPolicy {
  if (knownReadEnforcement(data.orgId) === false) return permitAll;
  return consentReadPolicy(principal, purposes, {
    policy: () => readConsentPolicy(data),
    consentsOf: (patients) => activeConsentsOf(fhirStoreFor(data, principal, { extensions }), patients),
  });
}
