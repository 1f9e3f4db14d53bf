// An API key presented outside the authentication middleware (an OAuth endpoint that also takes a
// management key, e.g. SMART token introspection): the same checks, uncached, for the org in the URL.
import type { Database } from "../../../platform/db/client";
import { ApiKeyStore } from "../api-keys";
import { authenticate } from "./authenticate";
import type { Principal } from "./permissions";

/** The key's principal, or undefined when `authorization` carries no live key of `orgId`. */
export async function authenticateApiKey(control: Database, authorization: string | undefined, orgId: string): Promise<Principal | undefined> {
  try {
    const { principal } = await authenticate({ authorization, organizationId: orgId, pathOrganizationId: orgId }, (hash) => new ApiKeyStore(control).findByHash(hash));
    return principal;
  } catch {
    return undefined;
  }
}
