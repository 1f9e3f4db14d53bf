// Builds the Hono app: middleware order, error shaping, route mounts, OpenAPI.
import { apiDocsRoutes } from "./platform/http/api-docs";
import { onError, onNotFound } from "./platform/http/error-handler";
import { orgContext } from "./org-context";
import { resolvePublicBase } from "./platform/http/public-url";
import { createRouter } from "./platform/http/router";
import { authenticateRequest } from "./features/tenancy/middleware/auth";
import { bodyLimit, requireJsonBody } from "./platform/http/body-limit";
import { rateLimit, rateLimitHeaders } from "./features/tenancy/middleware/rate-limit";
import { requestId } from "./platform/http/request-id";
import { adminRoutes } from "./features/operations/routes/admin";
import { agentChatRoutes, publicAgentRoutes } from "./features/agents/routes/agent-chat";
import { agentConversationRoutes } from "./features/agents/routes/agent-conversations";
import { agentToolRoutes } from "./features/agents/routes/agent-tools";
import { agentRoutes } from "./features/agents/routes/agents";
import { apiKeyRoutes } from "./features/tenancy/routes/api-keys";
import { connectorRoutes } from "./features/connectors/routes/connectors";
import { executionRoutes } from "./features/pipelines/routes/executions";
import { bulkExportRoutes } from "./features/export/routes/bulk-export";
import { type FhirRouterOptions, fhirRouter } from "./features/fhir/routes/fhir";
import { fhirOperationRegistry } from "./fhir-operations";
import { healthRoutes } from "./features/operations/routes/health";
import { inboundIngestRoutes, inboundMessageRoutes } from "./features/inbound/routes/messages";
import { INBOUND_ALIASES, inboundAdapters } from "./inbound-protocols";
import { llmModelRoutes } from "./features/agents/routes/llm-models";
import { nodeCatalogRoutes } from "./features/pipelines/routes/node-catalog";
import { organizationRoutes } from "./features/tenancy/routes/organization";
import { pipelineRoutes } from "./features/pipelines/routes/pipelines";
import { toolRoutes } from "./features/agents/routes/tools";
import { devicePlatformPublicRoutes, devicePlatformRoutes } from "./device-platforms/routes";

export const OPENAPI_PATH = "/api/openapi.json";

/** What a test may wire differently: the FHIR operations and the store's access policy. */
export type AppOptions = Partial<FhirRouterOptions>;

export function buildApp(options: AppOptions = {}) {
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

  // Operator routes: their own credential (OPERATOR_TOKEN), documented as operator-only.
  app.openAPIRegistry.registerComponent("securitySchemes", "operatorToken", { type: "http", scheme: "bearer", description: "The deployment's OPERATOR_TOKEN secret (operators only)" });
  app.route("/admin", adminRoutes);

  // Wearable platform webhooks and OAuth callbacks: the signature or the OAuth state authenticates them.
  app.route("/api", devicePlatformPublicRoutes);

  // Everything else is authenticated, counted and size-limited, in that order.
  app.use("/api/*", bodyLimit, authenticateRequest(), rateLimit, orgContext, requireJsonBody());
  app.use("/fhir/r4/:orgId/*", bodyLimit, authenticateRequest("orgId"), rateLimit, orgContext);

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
  app.route("/api", inboundIngestRoutes(inboundAdapters, INBOUND_ALIASES));
  app.route("/api/hl7/messages", inboundMessageRoutes);
  app.route("/api/v1/device-platforms", devicePlatformRoutes);
  // Bulk Data status and files before the generic FHIR routes, whose /{type}/{id} would match them.
  app.route("/fhir/r4/:orgId", bulkExportRoutes);
  app.route("/fhir/r4/:orgId", fhirRouter({ operations: options.operations ?? fhirOperationRegistry(), ...(options.policyFor ? { policyFor: options.policyFor } : {}) }));
  return app;
}
