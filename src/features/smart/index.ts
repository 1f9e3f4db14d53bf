// The SMART feature's public surface (Backend Services and App Launch 2.x): its routes, the
// access-token check the composition root hands the /fhir authentication, and what the FHIR
// discovery documents advertise.
import { ApiError } from "../../platform/errors";
import type { Env } from "../../platform/env";
import type { Principal } from "../../platform/principal";
import { controlStore } from "../../platform/org-data";
import { InvalidToken, looksLikeJwt, verifyAccessToken } from "./access-tokens";

export { clientApplicationRoutes } from "./routes/client-applications";
export { smartPublicRoutes } from "./routes/smart-public";
export { authorizeRoutes } from "./routes/authorize";
export { launchRoutes } from "./routes/launches";
export { ASSERTION_ALGS } from "./client-keys";
export { SUPPORTED_SCOPE_EXAMPLES } from "./scopes";
export { SMART_CAPABILITIES, smartConfiguration } from "./discovery";
export { PATHS as SMART_PATHS } from "./paths";
export { rotateSigningKey } from "./signing-keys";
export { clientPolicyAssignments } from "./access-policy";

/** Bearer access tokens for the FHIR endpoint: a refusal is 401 with RFC 6750's invalid_token. */
export const smartAccessTokens = {
  accepts: looksLikeJwt,
  async verify(env: Env, token: string, orgId: string, fhirBase: string): Promise<Principal> {
    try {
      return await verifyAccessToken(controlStore(env), env, token, orgId, fhirBase);
    } catch (e) {
      if (!(e instanceof InvalidToken)) throw e;
      const header = `Bearer error="invalid_token", error_description="${e.message.replace(/["\\]/g, "'")}"`;
      throw new ApiError(401, "UNAUTHORIZED", e.message, [], { "WWW-Authenticate": header });
    }
  },
};
