// Builds the Hono app: middleware order, error shaping, route mounts, OpenAPI.
import { apiDocsRoutes } from "./http/api-docs";
import { onError, onNotFound } from "./http/error-handler";
import { resolvePublicBase } from "./http/public-url";
import { createRouter } from "./http/router";
import { authenticateRequest } from "./middleware/auth";
import { bodyLimit, requireJsonBody } from "./middleware/body-limit";
import { rateLimit, rateLimitHeaders } from "./middleware/rate-limit";
import { requestId } from "./middleware/request-id";
import { agentChatRoutes, publicAgentRoutes } from "./routes/agent-chat";
import { agentConversationRoutes } from "./routes/agent-conversations";
import { agentToolRoutes } from "./routes/agent-tools";
import { agentRoutes } from "./routes/agents";
import { apiKeyRoutes } from "./routes/api-keys";
import { connectorRoutes } from "./routes/connectors";
import { executionRoutes } from "./routes/executions";
import { bulkExportRoutes } from "./routes/bulk-export";
import { fhirRoutes } from "./routes/fhir";
import { healthRoutes } from "./routes/health";
import { hl7IngestRoutes, hl7MessageRoutes } from "./routes/hl7-messages";
import { llmModelRoutes } from "./routes/llm-models";
import { nodeCatalogRoutes } from "./routes/node-catalog";
import { organizationRoutes } from "./routes/organization";
import { pipelineRoutes } from "./routes/pipelines";
import { toolRoutes } from "./routes/tools";

export const OPENAPI_PATH = "/api/openapi.json";

export function buildApp() {
  const app = createRouter();
  app.use("*", requestId, rateLimitHeaders, resolvePublicBase);
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
  app.route("/", apiDocsRoutes(OPENAPI_PATH, "Clinical Data Integration Service API"));
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
  app.route("/api/llm-models", llmModelRoutes);
  app.route("/api/agents", agentRoutes);
  app.route("/api/agents", agentChatRoutes);
  app.route("/api/agents", agentConversationRoutes);
  app.route("/api/agents", agentToolRoutes);
  app.route("/api/v1/agents", publicAgentRoutes);
  app.route("/api/pipelines", pipelineRoutes);
  app.route("/api", executionRoutes);
  app.route("/api/node-catalog", nodeCatalogRoutes);
  app.route("/api/connectors", connectorRoutes);
  app.route("/api/tools", toolRoutes);
  app.route("/api", hl7IngestRoutes);
  app.route("/api/hl7/messages", hl7MessageRoutes);
  // Bulk Data before the generic FHIR routes, whose /{type}/{id} would match /Patient/$export.
  app.route("/fhir/r4/:orgId", bulkExportRoutes);
  app.route("/fhir/r4/:orgId", fhirRoutes);
  return app;
}
