// /api/consent/policy: the organization's default consent policy and outbound enforcement.
import { createRoute } from "@hono/zod-openapi";
import { createRouter } from "../../../platform/http/router";
import { commonErrors, json, security } from "../../../platform/http/schemas";
import { requirePermission } from "../../tenancy";
import { ConsentPolicyBody, ConsentPolicySchema, presentConsentPolicy } from "../schemas";
import { getConsentPolicy, setConsentPolicy } from "../use-cases/policy";
import type { HttpEnv } from "../../../platform/http/http-env";
import { audited, theOrganization } from "../../audit";

const tags = ["Consent"];

export const consentPolicyRoutes = createRouter<HttpEnv>()
  .openapi(
    createRoute({
      method: "get",
      path: "/policy",
      tags,
      summary: "The organization's consent policy",
      description: "An organization that never set one has default_policy opt-out and enforce_outbound false.",
      security,
      middleware: requirePermission("org:read"),
      responses: { 200: { description: "Policy", content: json(ConsentPolicySchema) }, ...commonErrors },
    }),
    async (c) => c.json(presentConsentPolicy(await getConsentPolicy(c.get("ctx"))), 200),
  )
  .openapi(
    createRoute({
      method: "put",
      path: "/policy",
      audit: audited("consent_policy.update", theOrganization),
      tags,
      summary: "Set the organization's consent policy (admin)",
      security,
      middleware: requirePermission("consent:manage"),
      request: { body: { required: true, content: json(ConsentPolicyBody) } },
      responses: { 200: { description: "Policy", content: json(ConsentPolicySchema) }, ...commonErrors },
    }),
    async (c) => c.json(presentConsentPolicy(await setConsentPolicy(c.get("ctx"), c.get("principal"), c.req.valid("json"))), 200),
  );
