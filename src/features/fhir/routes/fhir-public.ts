// What a FHIR endpoint publishes without credentials, so clients can discover it before they
// authenticate: the CapabilityStatement (what the server supports, no data). The SMART
// configuration is the smart feature's. Mounted before authentication.
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

// The SMART configuration, the token endpoint and the JWK Set are the smart feature's routes
// (features/smart/routes/smart-public.ts).

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
  return routes;
}
