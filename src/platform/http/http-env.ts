// The part of a Hono environment the HTTP plumbing relies on: the bindings and the per-request
// variables it sets or reads itself (features declare theirs as Hono ContextVariableMap entries); the
// helpers here are generic over it, so the platform names no app type.
import type { Env } from "../env";

export interface HttpVariables {
  requestId: string;
  /** PUBLIC_BASE_URL (or, in development, the request's origin): see public-url.ts. */
  publicBaseUrl: string;
  /** The error code the request was answered with, for its log line and metrics. */
  errorCode?: string;
}

export interface HttpEnv {
  Bindings: Env;
  Variables: HttpVariables;
}
