// Factory for routers: an OpenAPIHono whose validation failures become our
// VALIDATION_FAILED error with field-level details.
import { OpenAPIHono } from "@hono/zod-openapi";
import type { ZodError } from "zod";
import { validationFailed } from "../errors";
import type { HttpEnv } from "./http-env";

export function zodDetails(error: ZodError): { path: string; message: string }[] {
  return error.issues.map((i) => ({
    path: i.path.length ? i.path.map(String).join(".") : "(root)",
    message: i.message,
  }));
}

/** A router for the environment `E` (the app passes its own, which extends HttpEnv). */
export function createRouter<E extends HttpEnv>(): OpenAPIHono<E> {
  return new OpenAPIHono<E>({
    defaultHook: (result) => {
      if (!result.success) {
        throw validationFailed(`Invalid ${result.target}`, zodDetails(result.error));
      }
    },
  });
}
