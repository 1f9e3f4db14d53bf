// Hono environment shared by every router: bindings plus per-request variables.
import type { BucketState } from "../features/tenancy/org-gate";
import type { Principal } from "../features/tenancy/auth/permissions";
import type { OrgContext } from "./context";
import type { Env } from "../platform/env";
import type { SessionWithKey } from "../features/tenancy/sessions/session-store";
import type { Limits } from "../features/tenancy/limits/config";
import type { Placement } from "../platform/directory";
import type { HttpEnv, HttpVariables } from "../platform/http/http-env";

export interface AppEnv extends HttpEnv {
  Bindings: Env;
  Variables: HttpVariables & {
    principal: Principal;
    /** Where the principal's org lives (the directory row the key lookup carried). */
    placement: Placement;
    /** Everything the request's org runs on (src/context.ts). */
    ctx: OrgContext;
    limits: Limits;
    /** The rate-limit bucket that counted this request and its X-RateLimit-* headers show. */
    rateLimit: BucketState;
    /** Set when a console session cookie (not a Bearer key) authenticated the request. */
    consoleSession?: { idHash: string; entry: SessionWithKey };
  };
}
