// The browsable API reference at /api/docs: Scalar's viewer, with its browser script bundled
// into the Worker (wrangler.toml [[rules]] imports it as text) and served from here, so the
// page works without internet and talks to no origin but this one (no CDN, fonts, telemetry,
// agent or request proxy).
import { createRoute, z } from "@hono/zod-openapi";
import { Scalar } from "@scalar/hono-api-reference";
import viewerScript from "../../../node_modules/@scalar/api-reference/dist/browser/standalone.js";
import type { HttpEnv } from "./http-env";
import { createRouter } from "./router";

export const DOCS_PATH = "/api/docs";
export const VIEWER_SCRIPT_PATH = `${DOCS_PATH}/viewer.js`;

const tags = ["Service"];
const text = (type: string) => ({ content: { [type]: { schema: z.string() } } });

export function apiDocsRoutes<E extends HttpEnv>(openApiPath: string, title: string) {
  const page = Scalar<E>({
    url: openApiPath,
    pageTitle: title,
    cdn: VIEWER_SCRIPT_PATH,
    withDefaultFonts: false,
    telemetry: false,
    agent: { disabled: true },
  });
  return createRouter<E>()
    .openapi(
      createRoute({ method: "get", operationId: "getApiReference", path: DOCS_PATH, tags, security: [], summary: "Browsable API reference (no authentication)", responses: { 200: { description: "HTML page", ...text("text/html") } } }),
      (c) => page(c, async () => {}) as Promise<Response>,
    )
    .openapi(
      createRoute({ method: "get", operationId: "getApiReferenceScript", path: VIEWER_SCRIPT_PATH, tags, security: [], summary: "The reference viewer's script (no authentication)", responses: { 200: { description: "JavaScript", ...text("text/javascript") } } }),
      (c) => {
        c.header("Content-Type", "text/javascript; charset=utf-8");
        c.header("Cache-Control", "public, max-age=86400");
        return c.body(viewerScript, 200);
      },
    );
}
