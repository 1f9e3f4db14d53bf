// POST /api/v1/smart/launches: the console's "Launch app" for the patient it has open (SMART EHR
// launch), and GET /api/v1/smart/launchable-apps, what it offers (names and launch URIs only: the
// people who launch apps need not manage clients). The answer's launch_url opens the app with `iss` (the org's FHIR base) and `launch`,
// whose context (patient, encounter) the app's authorization binds within 5 minutes, once.
import { createRoute } from "@hono/zod-openapi";
import { createRouter } from "../../../platform/http/router";
import { commonErrors, errorResponse, json, security } from "../../../platform/http/schemas";
import type { HttpEnv } from "../../../platform/http/http-env";
import { audited } from "../../audit";
import { requirePermission } from "../../tenancy";
import { launchableApps, startLaunch } from "../launch-use-case";
import { LaunchableAppsSchema, LaunchBody, LaunchSchema } from "../schemas";


export const launchRoutes = createRouter<HttpEnv>()
  .openapi(
    createRoute({
      method: "get",
      path: "/launchable-apps",
      tags: ["SMART App Launch"],
      summary: "The apps a person may launch for a patient: active client applications with a launch_uri",
      security,
      middleware: requirePermission("fhir:read"),
      responses: { 200: { description: "The apps", content: json(LaunchableAppsSchema) }, ...commonErrors },
    }),
    async (c) => c.json({ apps: await launchableApps(c.get("ctx")) }, 200),
  )
  .openapi(
  createRoute({
    method: "post",
    path: "/launches",
    tags: ["SMART App Launch"],
    summary: "Launch an app for a patient (EHR launch): the URL to open and its one-time launch value (5 minutes)",
    audit: audited("smart.launch"),
    security,
    middleware: requirePermission("fhir:read"),
    request: { body: { required: true, content: json(LaunchBody) } },
    responses: {
      201: { description: "The launch", content: json(LaunchSchema) },
      ...commonErrors,
      404: errorResponse("No such client application or patient"),
      422: errorResponse("The client has no launch_uri, or is not an active app"),
    },
  }),
  async (c) => {
    const body = c.req.valid("json");
    // The org is the principal's (no :orgId in this path).
    const base = `${c.get("publicBaseUrl")}/fhir/r4/${encodeURIComponent(c.get("principal").orgId)}`;
    return c.json(await startLaunch(c.get("ctx"), c.get("principal"), base, body), 201, { "Cache-Control": "no-store" });
  },
);
