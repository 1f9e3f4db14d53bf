// Hono environment shared by every router: bindings plus per-request variables.
import type { BucketState } from "./features/tenancy/org-gate";
import type { Principal } from "./features/tenancy/auth/permissions";
import type { Env } from "./platform/env";
import type { Limits } from "./features/tenancy/limits/config";

export interface AppEnv {
  Bindings: Env;
  Variables: {
    requestId: string;
    principal: Principal;
    limits: Limits;
    /** PUBLIC_BASE_URL (or, in development, the request's origin): see http/public-url.ts. */
    publicBaseUrl: string;
    /** The rate-limit bucket that counted this request and its X-RateLimit-* headers show. */
    rateLimit: BucketState;
  };
}
