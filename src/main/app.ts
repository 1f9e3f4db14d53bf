// Builds the Hono app: middleware order, error shaping, route mounts, OpenAPI.
import { apiDocsRoutes } from "../platform/http/api-docs";
import { managementAudit } from "../features/audit/middleware";
import { auditRoutes } from "../features/audit/routes/audit";
import { auditAdminRoutes } from "../features/audit/routes/admin";
import { orgLimitsAdminRoutes } from "../features/tenancy/routes/admin-limits";
import { deviceAdminRoutes } from "../features/devices/routes/admin";
import { onError, onNotFound } from "../platform/http/error-handler";
import { spaAssets } from "../platform/http/spa-assets";
import { CONSOLE_ROUTES } from "./console-routes";
import { overviewRoutes } from "./overview";
import { orgContext } from "./org-context";
import { orgContexts } from "./context";
import { devicePlatformsOf } from "./device-platform-services";
import { resolvePublicBase } from "../platform/http/public-url";
import { corsPolicy } from "../platform/http/cors";
import { requestLog } from "../platform/http/request-log";
import { assignOperationIds } from "../platform/http/operation-ids";
import { createRouter } from "../platform/http/router";
import { authenticateRequest } from "../features/tenancy/middleware/auth";
import { bodyLimit, requireJsonBody } from "../platform/http/body-limit";
import { drainUnreadBody } from "../platform/http/unread-body";
import { rateLimit, rateLimitHeaders } from "../features/tenancy/middleware/rate-limit";
import { requestId } from "../platform/http/request-id";
import { wellFormedPath } from "../platform/http/path-escapes";
import { adminRoutes } from "../features/operations/routes/admin";
import { agentChatRoutes, publicAgentRoutes } from "../features/agents/routes/agent-chat";
import { agentConversationRoutes } from "../features/agents/routes/agent-conversations";
import { agentToolRoutes } from "../features/agents/routes/agent-tools";
import { alertRoutes } from "../features/alerts/routes/alerts";
import { alertRuleRoutes } from "../features/alerts/routes/alert-rules";
import { agentRoutes } from "../features/agents/routes/agents";
import { apiKeyRoutes } from "../features/tenancy/routes/api-keys";
import { personalApiKeyRoutes } from "../features/tenancy/routes/personal-api-keys";
import { connectorRoutes } from "../features/connectors/routes/connectors";
import { destinationRoutes } from "../features/destinations";
import { copilotRoutes } from "../features/copilot/routes/index";
import { deviceRoutes } from "../features/devices/routes/devices";
import { syncRoutes } from "../features/devices/routes/sync";
import { consentPolicyRoutes } from "../features/consent/routes/policy";
import { iheSettingsRoutes } from "../features/ihe/routes/settings";
import { executionRoutes } from "../features/pipelines/routes/executions";
import { fileRoutes } from "../features/pipelines/routes/files";
import { bulkExportRoutes } from "../features/export/routes/bulk-export";
import { bulkExportListRoutes } from "../features/export/routes/export-list";
import { type FhirRouterOptions, fhirRouter } from "../features/fhir/routes/fhir";
import { fhirPublicRoutes } from "../features/fhir/routes/fhir-public";
import { fhirXmlResponses } from "../features/fhir/routes/fhir-format";
import type { OperationRegistry } from "../features/fhir/operations/registry";
import { healthRoutes } from "../features/operations/routes/health";
import { inboundIngestRoutes, inboundMessageRoutes } from "../features/inbound/routes/messages";
import { COPILOT_PORTS, FHIR_EXTENSIONS, INBOUND_ALIASES, inboundAdapters } from "./catalogs";
import { llmModelRoutes } from "../features/agents/routes/llm-models";
import { nodeCatalogRoutes } from "../features/pipelines/routes/node-catalog";
import { consoleSessionRoutes, consoleSignInRoutes } from "../features/tenancy/routes/console-session";
import { organizationRoutes } from "../features/tenancy/routes/organization";
import { authRoutes } from "../features/identity/routes/auth";
import { totpRoutes } from "../features/identity/routes/totp";
import { userRoutes } from "../features/identity/routes/users";
import { identityProviderRoutes, ssoPublicRoutes, ssoSignOutRoutes } from "../features/identity/sso/routes";
import { accessPolicyRoutes } from "../features/access-policies";
import { pipelineRoutes } from "../features/pipelines/routes/pipelines";
import { toolRoutes } from "../features/agents/routes/tools";
import { devicePlatformPublicRoutes, devicePlatformRoutes } from "../features/devices/platforms/routes";
import type { HttpEnv } from "../platform/http/http-env";
import { bridgeConnectRoutes, bridgeRoutes } from "../features/bridges";
import { destinationsPort, webhookEndpointRoutes, webhookEventTypeRoutes } from "../features/event-webhooks";
import { subscriptionSocketRoutes } from "../features/subscriptions";
import { authorizeRoutes, clientApplicationRoutes, launchRoutes, smartAccessTokens, smartPublicRoutes } from "../features/smart";
import { companionPublicRoutes, companionRoutes } from "../features/devices/platforms/companion/routes";

export const OPENAPI_PATH = "/api/openapi.json";

/** What a test may wire differently: the FHIR operations and the store's access policy. */
export interface AppOptions {
  operations?: OperationRegistry;
  policyFor?: FhirRouterOptions["policyFor"];
}

export function buildApp(options: AppOptions = {}) {
  const app = createRouter<HttpEnv>();
  // Outermost: the request's log line and metric see its final status, CORS preflights included.
  // Then a body the answer left unread is read before it goes out, or keep-alive clients meet resets (unread-body.ts).
  // A path whose escapes do not decode is refused before any route reads it (path-escapes.ts).
  app.use("*", requestLog<HttpEnv>((c) => ({ org: c.get("principal")?.orgId, key: c.get("principal")?.keyId })), drainUnreadBody, corsPolicy, requestId, rateLimitHeaders, resolvePublicBase, wellFormedPath);
  // Routes outside a request's org (operator, public) reach orgs through `c.get("contexts")`.
  app.use("*", async (c, next) => {
    c.set("contexts", orgContexts(c.env));
    await next();
  });
  app.onError(onError);
  app.notFound(onNotFound);

  // Public: health and the API description. Registered before auth so they answer first.
  app.route("/", healthRoutes);
  // Built per request: `servers` is this deployment's public base URL.
  app.get(OPENAPI_PATH, (c) => {
    const doc = app.getOpenAPI31Document({
      openapi: "3.1.0",
      info: {
        title: "Clinical Data Integration Service",
        version: "0.1.0",
        license: { name: "Apache-2.0", url: "https://www.apache.org/licenses/LICENSE-2.0" },
        description:
          "Multi-tenant FHIR R4 store, pipelines, HL7 v2, agents. Every request but the public ones " +
          "(health, this document, the FHIR CapabilityStatement) carries `Authorization: Bearer <API key>` and `X-Organization-ID`.",
      },
      servers: [{ url: c.get("publicBaseUrl"), description: "This deployment" }],
    });
    assignOperationIds(doc.paths as Parameters<typeof assignOperationIds>[0]);
    return c.json(doc);
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
  app.use("/admin/*", bodyLimit);
  app.route("/admin", adminRoutes);
  app.route("/admin", auditAdminRoutes);
  app.route("/admin", orgLimitsAdminRoutes);
  app.route("/admin", deviceAdminRoutes);

  // A FHIR endpoint's CapabilityStatement and SMART configuration are public (discovery).
  const fhirExtensions = options.operations ? { ...FHIR_EXTENSIONS, operations: options.operations } : FHIR_EXTENSIONS;
  app.use("/fhir/*", fhirXmlResponses);
  app.route("/fhir/r4/:orgId", fhirPublicRoutes(fhirExtensions));
  // SMART's authorization server: the token, introspection and revocation endpoints (the client
  // authenticates itself), the JWK Set and discovery, and the authorization endpoint (the console
  // session cookie names the person who approves).
  app.use("/fhir/r4/:orgId/auth/*", bodyLimit);
  app.route("/fhir/r4/:orgId", smartPublicRoutes);
  app.route("/fhir/r4/:orgId", authorizeRoutes);

  // The console's sign-in carries its API key in the body; the session cookie it sets then
  // authenticates like a Bearer key (features/tenancy/sessions/).
  app.openAPIRegistry.registerComponent("securitySchemes", "consoleSession", { type: "apiKey", in: "cookie", name: "cdis_session", description: "The web console's session (POST /api/v1/console/session)" });
  app.use("/api/v1/console/session", bodyLimit);
  app.route("/api/v1/console/session", consoleSignInRoutes);
  // A user's invitation acceptance and password sign-in: public, the body carries the credential.
  app.use("/api/v1/auth/*", bodyLimit);
  app.route("/api/v1/auth", authRoutes);
  // Single sign-on (OpenID Connect): public; the start and the IdP's callback are browser
  // navigations, the single-use state (and the browser's cdis_sso cookie) authenticates the callback.
  app.route("/api/v1/auth/sso", ssoPublicRoutes);

  // Wearable platform webhooks and OAuth callbacks: the signature or the OAuth state authenticates them.
  app.route("/api", devicePlatformPublicRoutes(devicePlatformsOf));
  app.route("/api", companionPublicRoutes);
  // A bridge's relay WebSocket: its own credential, never an API key (features/bridges/routes.ts).
  app.route("/api/v1/bridges", bridgeConnectRoutes);
  // A FHIR Subscription websocket: the binding token it sends authenticates it (features/subscriptions/routes.ts).
  app.route("/fhir/r4", subscriptionSocketRoutes);

  // Everything else is authenticated, counted and size-limited, in that order.
  // Then every management action is audited once its route has answered: each route declares its
  // audit where it is defined (features/audit/declarations.ts, platform/http/route-audit.ts).
  app.use("/api/*", bodyLimit, authenticateRequest(), rateLimit, orgContext, managementAudit, requireJsonBody());
  app.use("/fhir/r4/:orgId/*", bodyLimit, authenticateRequest("orgId", smartAccessTokens), rateLimit, orgContext, managementAudit);

  app.route("/api", organizationRoutes);
  app.route("/api/v1/overview", overviewRoutes);
  app.route("/api/v1/console/session", consoleSessionRoutes);
  app.route("/api/api-keys", apiKeyRoutes);
  app.route("/api/v1/client-applications", clientApplicationRoutes);
  app.route("/api/v1/smart", launchRoutes);
  app.route("/api/v1/users/me/api-keys", personalApiKeyRoutes);
  app.route("/api/v1/users", ssoSignOutRoutes);
  app.route("/api/v1/users", totpRoutes);
  app.route("/api/v1/users", userRoutes);
  app.route("/api/v1/identity-providers", identityProviderRoutes);
  app.route("/api/v1/access-policies", accessPolicyRoutes);
  app.route("/api/llm-models", llmModelRoutes);
  app.route("/api/agents", agentRoutes);
  app.route("/api/agents", agentChatRoutes);
  app.route("/api/agents", agentConversationRoutes);
  app.route("/api/agents", agentToolRoutes);
  app.route("/api/v1/agents", publicAgentRoutes);
  app.route("/api/pipelines", pipelineRoutes);
  app.route("/api", executionRoutes);
  app.route("/api/v1/files", fileRoutes);
  app.route("/api/node-catalog", nodeCatalogRoutes);
  app.route("/api/connectors", connectorRoutes);
  app.route("/api/v1/destinations", destinationRoutes);
  app.route("/api/tools", toolRoutes);
  app.route("/api/copilot", copilotRoutes(COPILOT_PORTS));
  app.route("/api/v1", deviceRoutes);
  app.route("/api/v1", syncRoutes);
  app.route("/api", inboundIngestRoutes(inboundAdapters, INBOUND_ALIASES));
  app.route("/api/hl7/messages", inboundMessageRoutes(inboundAdapters));
  app.route("/api/v1/alert-rules", alertRuleRoutes);
  app.route("/api/v1/alerts", alertRoutes);
  app.route("/api/consent", consentPolicyRoutes);
  app.route("/api/ihe", iheSettingsRoutes);
  app.route("/api/audit", auditRoutes);
  app.route("/api/v1/bulk-exports", bulkExportListRoutes);
  app.route("/api/v1/device-platforms", devicePlatformRoutes);
  app.route("/api/v1/device-platforms", companionRoutes);
  app.route("/api/v1/bridges", bridgeRoutes);
  app.route("/api/v1/webhook-event-types", webhookEventTypeRoutes);
  app.route("/api/v1/webhook-endpoints", webhookEndpointRoutes(destinationsPort));
  // Bulk Data status and files before the generic FHIR routes, whose /{type}/{id} would match them.
  app.route("/fhir/r4/:orgId", bulkExportRoutes);
  app.route("/fhir/r4/:orgId", fhirRouter({ extensions: fhirExtensions, ...(options.policyFor ? { policyFor: options.policyFor } : {}) }));

  // Last: the web console (static assets, wrangler.toml [assets]): its page for its routes, its
  // files, 404 for anything else; through the middleware above, so with the X-RateLimit-* headers.
  app.on(["GET", "HEAD"], "*", spaAssets<HttpEnv>({ routes: Object.values(CONSOLE_ROUTES), notUnder: ["/api", "/fhir", "/admin", "/health", "/.well-known", "/__scheduled"] }));
  return app;
}
