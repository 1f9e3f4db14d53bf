// An API error a Durable Object answers as a value: RPC keeps an Error's message but not
// its class, so status and code travel as data and the caller rethrows them as an ApiError.
import { ApiError } from "../errors";

export type Failure = { ok: false; error: { status: number; code: string; message: string } };

export function failure(err: ApiError): Failure {
  return { ok: false, error: { status: err.status, code: err.code, message: err.message } };
}

/** The failure an ApiError stands for; anything else is rethrown. */
export function asFailure(err: unknown): Failure {
  if (err instanceof ApiError) return failure(err);
  throw err;
}

/** The ApiError a failure (or an error event of the same shape) stands for. */
export const apiErrorOf = (e: Failure["error"]) => new ApiError(e.status, e.code, e.message);
