// What a FHIR endpoint publishes without credentials, so clients can discover it before they
// authenticate: the CapabilityStatement (what the server supports, no data) and the SMART
// configuration (how to authenticate: bearer API keys; there is no OAuth authorization server
// yet, so no SMART launch capabilities are claimed). Mounted before authentication.
import { createRoute, z } from "@hono/zod-openapi";
import { fhirBaseUrl } from "../../../platform/http/public-url";
import { createRouter } from "../../../platform/http/router";
import { capabilityStatement } from "../capabilities";
import type { FhirExtensions } from "../extensions";
import { fhirContent, send } from "./fhir-http";
import { negotiate } from "./fhir";
import type { HttpEnv } from "../../../platform/http/http-env";

const SOFTWARE = { name: "cdis-fhir-store", version: "0.1.0" };
const OrgParam = z.object({ orgId: z.string().openapi({ param: { name: "orgId", in: "path" } }) });

/** The SMART configuration of a server whose only credential is a bearer API key. */
export function smartConfiguration() {
  return {
    capabilities: [],
    grant_types_supported: [],
    code_challenge_methods_supported: [],
    token_endpoint_auth_methods_supported: [],
    // Not a SMART field: says what to send instead of an OAuth access token.
    authentication: {
      type: "bearer",
      description: "Send `Authorization: Bearer <API key>` and `X-Organization-ID: <organization id>` on every request; an administrator creates API keys (POST /api/api-keys).",
    },
  };
}

/** `extensions`: the operations, search parameters and actors the CapabilityStatement declares. */
export function fhirPublicRoutes(extensions: FhirExtensions) {
  const routes = createRouter<HttpEnv>();
  routes.use("/metadata", negotiate);
  routes.openapi(
    createRoute({
      method: "get",
      path: "/metadata",
      operationId: "capabilities",
      tags: ["FHIR R4"],
      summary: "CapabilityStatement, generated from the implementation (no authentication)",
      security: [],
      request: { params: OrgParam },
      responses: { 200: { description: "CapabilityStatement", content: fhirContent }, 406: { description: "Unsupported _format or Accept (OperationOutcome)", content: fhirContent } },
    }),
    (c) => send(c, 200, capabilityStatement(fhirBaseUrl(c), SOFTWARE, extensions)) as never,
  );
  routes.openapi(
    createRoute({
      method: "get",
      path: "/.well-known/smart-configuration",
      operationId: "smartConfiguration",
      tags: ["FHIR R4"],
      summary: "SMART configuration: how to authenticate (no authentication)",
      security: [],
      request: { params: OrgParam },
      responses: { 200: { description: "SMART configuration", content: { "application/json": { schema: z.object({ capabilities: z.array(z.string()) }).passthrough() } } } },
    }),
    (c) => c.json(smartConfiguration(), 200),
  );
  return routes;
}
