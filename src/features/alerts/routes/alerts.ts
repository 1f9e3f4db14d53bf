// /api/v1/alerts: the alerts rules raised (one per episode), with their FHIR resources;
// acknowledging and resolving are for admins and clinicians.
import { createRoute } from "@hono/zod-openapi";
import { createRouter } from "../../../platform/http/router";
import { commonErrors, conflictError, json, notFoundError, pageOf, security } from "../../../platform/http/schemas";
import { requirePermission } from "../../tenancy";
import { Alert, AlertActionBody, AlertListQuery, IdParam, presentAlert } from "../schemas";
import { acknowledgeAlert, getAlert, listAlerts, resolveAlert } from "../use-cases/alerts";
import type { HttpEnv } from "../../../platform/http/http-env";
import { audited, byId } from "../../audit";

const tags = ["Alerts"];
const manage = requirePermission("alerts:manage");
const read = requirePermission("alerts:read");
const action = { required: false, content: json(AlertActionBody) };

export const alertRoutes = createRouter<HttpEnv>()
  .openapi(
    createRoute({ method: "get", path: "/", tags, summary: "List alerts, newest first", security, middleware: read, request: { query: AlertListQuery }, responses: { 200: { description: "Page", content: json(pageOf("alerts", Alert)) }, ...commonErrors } }),
    async (c) => {
      const { limit, offset, patient_id, state, kind, rule_id } = c.req.valid("query");
      const { rows, total } = await listAlerts(c.get("ctx"), { patientId: patient_id, state, kind, ruleId: rule_id }, limit, offset);
      return c.json({ alerts: rows.map(presentAlert), total_count: total }, 200);
    },
  )
  .openapi(
    createRoute({ method: "get", path: "/{id}", tags, summary: "Get an alert", security, middleware: read, request: { params: IdParam }, responses: { 200: { description: "Alert", content: json(Alert) }, ...commonErrors, ...notFoundError } }),
    async (c) => c.json(presentAlert(await getAlert(c.get("ctx"), c.req.valid("param").id)), 200),
  )
  .openapi(
    createRoute({ method: "post", path: "/{id}/acknowledge", audit: audited("alert.acknowledge", byId), tags, summary: "Acknowledge an alert (admin, clinician)", security, middleware: manage, request: { params: IdParam, body: action }, responses: { 200: { description: "Acknowledged", content: json(Alert) }, ...commonErrors, ...notFoundError, ...conflictError } }),
    async (c) => c.json(presentAlert(await acknowledgeAlert(c.get("ctx"), c.get("principal"), c.req.valid("param").id, c.req.valid("json")?.note)), 200),
  )
  .openapi(
    createRoute({ method: "post", path: "/{id}/resolve", audit: audited("alert.resolve", byId), tags, summary: "Resolve an alert (admin, clinician)", security, middleware: manage, request: { params: IdParam, body: action }, responses: { 200: { description: "Resolved", content: json(Alert) }, ...commonErrors, ...notFoundError, ...conflictError } }),
    async (c) => c.json(presentAlert(await resolveAlert(c.get("ctx"), c.get("principal"), c.req.valid("param").id, c.req.valid("json")?.note)), 200),
  );
