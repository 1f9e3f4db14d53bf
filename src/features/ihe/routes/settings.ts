// /api/ihe/settings: the organization's IHE conformance settings on its FHIR endpoint.
import { createRoute } from "@hono/zod-openapi";
import type { HttpEnv } from "../../../platform/http/http-env";
import { createRouter } from "../../../platform/http/router";
import { commonErrors, json, security } from "../../../platform/http/schemas";
import { audited, theOrganization } from "../../audit";
import { requirePermission } from "../../tenancy";
import { IheSettingsBody, IheSettingsSchema, presentIheSettings } from "../schemas";
import { readIheSettings, writeIheSettings } from "../settings-store";

const tags = ["IHE"];

export const iheSettingsRoutes = createRouter<HttpEnv>()
  .openapi(
    createRoute({
      method: "get",
      path: "/settings",
      tags,
      summary: "The organization's IHE settings",
      description: "An organization that never set them has mhd_strict false.",
      security,
      middleware: requirePermission("org:read"),
      responses: { 200: { description: "Settings", content: json(IheSettingsSchema) }, ...commonErrors },
    }),
    async (c) => c.json(presentIheSettings(await readIheSettings(c.get("ctx"), true)), 200),
  )
  .openapi(
    createRoute({
      method: "put",
      path: "/settings",
      audit: audited("ihe_settings.update", theOrganization),
      tags,
      summary: "Change the organization's IHE settings (admin); settings left out keep their values",
      security,
      middleware: requirePermission("fhir:configure"),
      request: { body: { required: true, content: json(IheSettingsBody) } },
      responses: { 200: { description: "Settings", content: json(IheSettingsSchema) }, ...commonErrors },
    }),
    async (c) => {
      const body = c.req.valid("json");
      return c.json(presentIheSettings(await writeIheSettings(c.get("ctx"), { mhdStrict: body.mhd_strict, supersededGone: body.mhd_superseded_gone }, c.get("principal").keyId)), 200);
    },
  );
