// Builds the Hono app: middleware order, error shaping, route mounts, OpenAPI.
import { Scalar } from "@scalar/hono-api-reference";
import { onError, onNotFound } from "./http/error-handler";
import { createRouter } from "./http/router";
import { authenticateRequest } from "./middleware/auth";
import { bodyLimit, requireJsonBody } from "./middleware/body-limit";
import { rateLimit } from "./middleware/rate-limit";
import { requestId } from "./middleware/request-id";
import { apiKeyRoutes } from "./routes/api-keys";
import { fhirRoutes } from "./routes/fhir";
import { healthRoutes } from "./routes/health";
import { organizationRoutes } from "./routes/organization";

export const OPENAPI_PATH = "/api/openapi.json";

export function buildApp() {
  const app = createRouter();
  app.use("*", requestId);
  app.onError(onError);
  app.notFound(onNotFound);

  // Public: health and the API description. Registered before auth so they answer first.
  app.route("/", healthRoutes);
  app.doc31(OPENAPI_PATH, {
    openapi: "3.1.0",
    info: {
      title: "Clinical Data Integration Service",
      version: "0.1.0",
      description:
        "Multi-tenant FHIR R4 store, pipelines, HL7 v2, agents. Every request but /health carries " +
        "`Authorization: Bearer <API key>` and `X-Organization-ID`.",
    },
  });
  app.get("/api/docs", Scalar({ url: OPENAPI_PATH, pageTitle: "Clinical Data Integration Service API" }));
  app.openAPIRegistry.registerComponent("securitySchemes", "bearerAuth", { type: "http", scheme: "bearer" });
  app.openAPIRegistry.registerComponent("securitySchemes", "organizationId", {
    type: "apiKey",
    in: "header",
    name: "X-Organization-ID",
  });

  // Everything else is authenticated, counted and size-limited, in that order.
  app.use("/api/*", bodyLimit, authenticateRequest(), rateLimit, requireJsonBody());
  app.use("/fhir/r4/:orgId/*", bodyLimit, authenticateRequest("orgId"), rateLimit);

  app.route("/api", organizationRoutes);
  app.route("/api/api-keys", apiKeyRoutes);
  app.route("/fhir/r4/:orgId", fhirRoutes);
  return app;
}
