// /api/v1/alert-rules: threshold alert rules per patient + metric or per patient device
// (spec 6.3). Admins and clinicians write them; every role of the org may read them.
import { createRoute } from "@hono/zod-openapi";
import { createRouter } from "../../../platform/http/router";
import { commonErrors, json, notFoundError, pageOf, security } from "../../../platform/http/schemas";
import { requirePermission } from "../../tenancy";
import { AlertRule, IdParam, RuleBody, RuleListQuery, presentRule } from "../schemas";
import { createRule, deleteRule, getRule, listRules, replaceRule } from "../use-cases/rules";
import type { HttpEnv } from "../../../platform/http/http-env";
import { audited, byId, newId } from "../../audit";

const tags = ["Alerts"];
const manage = requirePermission("alerts:manage");
const read = requirePermission("alerts:read");
const body = { required: true, content: json(RuleBody) };

export const alertRuleRoutes = createRouter<HttpEnv>()
  .openapi(
    createRoute({ method: "get", path: "/", tags, summary: "List alert rules", security, middleware: read, request: { query: RuleListQuery }, responses: { 200: { description: "Page", content: json(pageOf("alert_rules", AlertRule)) }, ...commonErrors } }),
    async (c) => {
      const { limit, offset, patient_id, device_id, metric, kind } = c.req.valid("query");
      const { rows, total } = await listRules(c.get("ctx"), { patientId: patient_id, deviceId: device_id, metric, kind }, limit, offset);
      return c.json({ alert_rules: rows.map(presentRule), total_count: total }, 200);
    },
  )
  .openapi(
    createRoute({ method: "post", path: "/", audit: audited("alert_rule.create", newId), tags, summary: "Create an alert rule (admin, clinician)", security, middleware: manage, request: { body }, responses: { 201: { description: "Created", content: json(AlertRule) }, ...commonErrors } }),
    async (c) => c.json(presentRule(await createRule(c.get("ctx"), c.get("principal"), c.req.valid("json"))), 201),
  )
  .openapi(
    createRoute({ method: "get", path: "/{id}", tags, summary: "Get an alert rule", security, middleware: read, request: { params: IdParam }, responses: { 200: { description: "Rule", content: json(AlertRule) }, ...commonErrors, ...notFoundError } }),
    async (c) => c.json(presentRule(await getRule(c.get("ctx"), c.req.valid("param").id)), 200),
  )
  .openapi(
    createRoute({ method: "put", path: "/{id}", audit: audited("alert_rule.update", byId), tags, summary: "Replace an alert rule (re-arms it)", security, middleware: manage, request: { params: IdParam, body }, responses: { 200: { description: "Updated", content: json(AlertRule) }, ...commonErrors, ...notFoundError } }),
    async (c) => c.json(presentRule(await replaceRule(c.get("ctx"), c.get("principal"), c.req.valid("param").id, c.req.valid("json"))), 200),
  )
  .openapi(
    createRoute({ method: "delete", path: "/{id}", audit: audited("alert_rule.delete", byId), tags, summary: "Delete an alert rule (its alerts stay)", security, middleware: manage, request: { params: IdParam }, responses: { 204: { description: "Deleted" }, ...commonErrors, ...notFoundError } }),
    async (c) => {
      await deleteRule(c.get("ctx"), c.req.valid("param").id);
      return c.body(null, 204);
    },
  );
