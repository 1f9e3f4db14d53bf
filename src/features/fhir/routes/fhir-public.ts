// What a FHIR endpoint publishes without credentials, so clients can discover it before they
// authenticate: the CapabilityStatement (what the server supports, no data) and the SMART
// configuration (how to authenticate: SMART Backend Services' client_credentials with a
// private_key_jwt assertion, or a bearer API key). Mounted before authentication.
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

// The token endpoint and JWK Set are the smart feature's routes (features/smart/routes/smart-public.ts).
const SMART_SCOPES = ["system/*.read", "system/*.rs", "system/*.cruds", "system/*.write", "system/*.*"];

/** The SMART configuration of the FHIR base `fhirBase`: Backend Services only (no user launch). */
export function smartConfiguration(fhirBase: string) {
  return {
    issuer: fhirBase,
    token_endpoint: `${fhirBase}/auth/token`,
    jwks_uri: `${fhirBase}/.well-known/jwks.json`,
    grant_types_supported: ["client_credentials"],
    token_endpoint_auth_methods_supported: ["private_key_jwt"],
    token_endpoint_auth_signing_alg_values_supported: ["RS384", "ES384"],
    scopes_supported: SMART_SCOPES,
    response_types_supported: ["token"],
    code_challenge_methods_supported: [],
    capabilities: ["client-confidential-asymmetric", "permission-v1", "permission-v2"],
    // Not a SMART field: the other credential this server takes.
    authentication: {
      type: "bearer",
      description: "Send `Authorization: Bearer <access token>` (from token_endpoint), or `Authorization: Bearer <API key>` with `X-Organization-ID: <organization id>`; an administrator registers clients (POST /api/v1/client-applications) and creates API keys (POST /api/api-keys).",
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
    (c) => c.json(smartConfiguration(fhirBaseUrl(c)), 200),
  );
  return routes;
}
