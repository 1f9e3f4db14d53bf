// Factory for routers: an OpenAPIHono whose validation failures become our
// VALIDATION_FAILED error with field-level details.
import { OpenAPIHono } from "@hono/zod-openapi";
import type { ZodError } from "zod";
import { validationFailed } from "../errors";
import type { AppEnv } from "../../app-env";

export function zodDetails(error: ZodError): { path: string; message: string }[] {
  return error.issues.map((i) => ({
    path: i.path.length ? i.path.map(String).join(".") : "(root)",
    message: i.message,
  }));
}

export function createRouter(): OpenAPIHono<AppEnv> {
  return new OpenAPIHono<AppEnv>({
    defaultHook: (result) => {
      if (!result.success) {
        throw validationFailed(`Invalid ${result.target}`, zodDetails(result.error));
      }
    },
  });
}
