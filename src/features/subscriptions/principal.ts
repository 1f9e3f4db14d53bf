// Who the subscriptions' own FHIR reads and writes act as (status bookkeeping, $events' reads).
import type { Principal } from "../tenancy";

export const subscriptionsPrincipal = (orgId: string): Principal => ({ orgId, keyId: "system:subscriptions", keyName: "FHIR subscriptions", role: "service", scopes: [] });
