// /api/v1 device routes: readings in, device integrations (admin), patient devices, vitals and
// the timeline. Thin: validate, call one use case, shape the answer.
import { createRoute, z } from "@hono/zod-openapi";
import { createRouter } from "../../../platform/http/router";
import { commonErrors, conflictError, json, notFoundError, pageOf, PageQuery, security } from "../../../platform/http/schemas";
import { requirePermission } from "../../tenancy";
import { deviceMetricsCodeSystem } from "../metrics/codes";
import {
  IdParam,
  Integration,
  IntegrationBody,
  LinkBody,
  PatientDevice,
  PatientDeviceParam,
  PatientParam,
  presentIntegration,
  ReadingInput,
  presentLink,
  ReadingsBody,
  ReadingsResult,
  presentReadingMove,
  presentSourcePriority,
  ReadingMove,
  ReadingMovesRestored,
  SourcePriorityBody,
  SourcePrioritySchema,
  Vitals,
  VitalsQuery,
} from "../schemas";
import { receiveReadings } from "../use-cases/receive";
import { changeIntegration, createIntegration, getIntegration, listDeviceIntegrations, removeIntegration } from "../use-cases/integrations";
import { linkDevice, listPatientDevices, unlinkDevice } from "../use-cases/links";
import { listReadingMoves, restoreReadingMoves } from "../use-cases/reading-moves";
import { getSourcePriority, setSourcePriority } from "../use-cases/source-priority";
import { patientTimeline, TIMELINE_TYPES } from "../use-cases/timeline";
import { patientVitals } from "../use-cases/vitals";
import type { HttpEnv } from "../../../platform/http/http-env";
import { AUDITED_BY_FHIR_STORE, audited, byId, newId, theOrganization } from "../../audit";

const tags = ["Devices"];
const ingest = requirePermission("messages:ingest");
const manage = requirePermission("connectors:manage");
const read = requirePermission("fhir:read");
const write = requirePermission("fhir:write");

const TimelineQuery = PageQuery.extend({
  type: z
    .union([z.string(), z.array(z.string())])
    .optional()
    .openapi({ description: `Event types (repeatable or comma-separated): ${TIMELINE_TYPES.join(", ")}` }),
});
const TimelineEvent = z.object({ type: z.string(), timestamp: z.string().nullable(), resource_type: z.string(), resource_id: z.string(), title: z.string(), resource: z.record(z.string(), z.unknown()) }).openapi("TimelineEvent");

export const deviceRoutes = createRouter<HttpEnv>()
  .openapi(
    createRoute({ method: "post", path: "/devices/readings", audit: AUDITED_BY_FHIR_STORE, operationId: "ingestDeviceReadings", tags, summary: "Ingest a batch of device readings (idempotent per platform + device + source record id + metric)", security, middleware: ingest, request: { body: { required: true, content: json(ReadingsBody) } }, responses: { 200: { description: "Per-reading results", content: json(ReadingsResult) }, ...commonErrors } }),
    async (c) => c.json(await receiveReadings(c.get("ctx"), c.get("principal"), c.req.valid("json").readings), 200),
  )
  .openapi(
    createRoute({ method: "get", path: "/devices/code-system", operationId: "getDeviceCodeSystem", tags, summary: "The CodeSystem of device metrics without a LOINC code", security, middleware: read, responses: { 200: { description: "FHIR CodeSystem", content: json(z.record(z.string(), z.unknown())) }, ...commonErrors } }),
    (c) => c.json(deviceMetricsCodeSystem(), 200),
  )
  .openapi(
    createRoute({ method: "get", path: "/device-integrations", tags, summary: "List device integrations", security, middleware: manage, request: { query: PageQuery }, responses: { 200: { description: "Page", content: json(pageOf("integrations", Integration)) }, ...commonErrors } }),
    async (c) => {
      const { limit, offset } = c.req.valid("query");
      const { rows, total } = await listDeviceIntegrations(c.get("ctx"), limit, offset);
      return c.json({ integrations: rows.map(presentIntegration), total_count: total }, 200);
    },
  )
  .openapi(
    createRoute({ method: "post", path: "/device-integrations", audit: audited("device.integration_create", newId), tags, summary: "Create a device integration (credentials encrypted, never returned)", security, middleware: manage, request: { body: { required: true, content: json(IntegrationBody) } }, responses: { 201: { description: "Created", content: json(Integration) }, ...commonErrors, ...conflictError } }),
    async (c) => {
      const body = c.req.valid("json");
      return c.json(presentIntegration(await createIntegration(c.get("ctx"), { ...body, settings: body.settings ?? {} })), 201);
    },
  )
  .openapi(
    createRoute({ method: "get", path: "/device-integrations/{id}", tags, summary: "Get a device integration", security, middleware: manage, request: { params: IdParam }, responses: { 200: { description: "Integration", content: json(Integration) }, ...commonErrors, ...notFoundError } }),
    async (c) => c.json(presentIntegration(await getIntegration(c.get("ctx"), c.req.valid("param").id)), 200),
  )
  .openapi(
    createRoute({ method: "put", path: "/device-integrations/{id}", audit: audited("device.integration_change", byId), tags, summary: "Update a device integration", security, middleware: manage, request: { params: IdParam, body: { required: true, content: json(IntegrationBody) } }, responses: { 200: { description: "Updated", content: json(Integration) }, ...commonErrors, ...notFoundError } }),
    async (c) => {
      const body = c.req.valid("json");
      return c.json(presentIntegration(await changeIntegration(c.get("ctx"), c.req.valid("param").id, { ...body, settings: body.settings ?? {} })), 200);
    },
  )
  .openapi(
    createRoute({ method: "delete", path: "/device-integrations/{id}", audit: audited("device.integration_delete", byId), tags, summary: "Delete a device integration", security, middleware: manage, request: { params: IdParam }, responses: { 204: { description: "Deleted" }, ...commonErrors, ...notFoundError } }),
    async (c) => {
      await removeIntegration(c.get("ctx"), c.req.valid("param").id);
      return c.body(null, 204);
    },
  )
  .openapi(
    createRoute({ method: "get", path: "/patients/{patientId}/devices", tags, summary: "List a patient's linked devices", security, middleware: read, request: { params: PatientParam, query: PageQuery }, responses: { 200: { description: "Page", content: json(pageOf("devices", PatientDevice)) }, ...commonErrors, ...notFoundError } }),
    async (c) => {
      const { limit, offset } = c.req.valid("query");
      const { rows, total } = await listPatientDevices(c.get("ctx"), c.get("principal"), c.req.valid("param").patientId, limit, offset);
      return c.json({ devices: rows.map(presentLink), total_count: total }, 200);
    },
  )
  .openapi(
    createRoute({ method: "post", path: "/patients/{patientId}/devices", audit: audited("device.link", { response: "device_id" }), operationId: "linkPatientDevice", tags, summary: "Link a device to a patient (creates the FHIR Device)", security, middleware: write, request: { params: PatientParam, body: { required: true, content: json(LinkBody) } }, responses: { 201: { description: "Linked", content: json(PatientDevice) }, ...commonErrors, ...notFoundError, ...conflictError } }),
    async (c) => {
      const b = c.req.valid("json");
      const row = await linkDevice(c.get("ctx"), c.get("principal"), c.req.valid("param").patientId, {
        name: b.name,
        platform: b.platform,
        integrationId: b.integration_id,
        platformDeviceId: b.platform_device_id,
        platformUserId: b.platform_user_id,
        manufacturer: b.manufacturer,
        model: b.model,
        serialNumber: b.serial_number,
        tokens: b.tokens ? { accessToken: b.tokens.access_token, refreshToken: b.tokens.refresh_token, expiresAt: b.tokens.expires_at, scope: b.tokens.scope } : undefined,
      });
      return c.json(presentLink(row), 201);
    },
  )
  .openapi(
    createRoute({ method: "delete", path: "/patients/{patientId}/devices/{deviceId}", audit: audited("device.unlink", { param: "deviceId" }), operationId: "unlinkPatientDevice", tags, summary: "Unlink a device (the Device becomes inactive; its readings stay)", security, middleware: write, request: { params: PatientDeviceParam }, responses: { 204: { description: "Unlinked" }, ...commonErrors, ...notFoundError } }),
    async (c) => {
      const { patientId, deviceId } = c.req.valid("param");
      await unlinkDevice(c.get("ctx"), c.get("principal"), patientId, deviceId);
      return c.body(null, 204);
    },
  )
  .openapi(
    createRoute({ method: "get", path: "/devices/source-priority", operationId: "getDeviceSourcePriority", tags, summary: "The organization's device source priority for the vitals query (admin)", security, middleware: manage, responses: { 200: { description: "Source priority", content: json(SourcePrioritySchema) }, ...commonErrors } }),
    async (c) => c.json(presentSourcePriority(await getSourcePriority(c.get("ctx"))), 200),
  )
  .openapi(
    createRoute({ method: "put", path: "/devices/source-priority", audit: audited("device.source_priority_update", theOrganization), operationId: "setDeviceSourcePriority", tags, summary: "Set which platforms count first where two devices report a metric in the same hour (admin)", security, middleware: manage, request: { body: { required: true, content: json(SourcePriorityBody) } }, responses: { 200: { description: "Source priority", content: json(SourcePrioritySchema) }, ...commonErrors } }),
    async (c) => c.json(presentSourcePriority(await setSourcePriority(c.get("ctx"), c.get("principal"), c.req.valid("json").priorities)), 200),
  )
  .openapi(
    createRoute({
      method: "get",
      path: "/devices/reading-moves",
      operationId: "listDeviceReadingMoves",
      tags,
      summary: "Readings whose Observation another patient's reading took over before readings were keyed by device (found by migration; admin)",
      security,
      middleware: manage,
      request: { query: PageQuery },
      responses: { 200: { description: "Page, with how many are not restored yet", content: json(pageOf("moves", ReadingMove).extend({ unrestored_count: z.number().int() })) }, ...commonErrors },
    }),
    async (c) => {
      const { limit, offset } = c.req.valid("query");
      const { rows, total, unrestored } = await listReadingMoves(c.get("ctx"), limit, offset);
      return c.json({ moves: rows.map(presentReadingMove), total_count: total, unrestored_count: unrestored }, 200);
    },
  )
  .openapi(
    createRoute({
      method: "post",
      path: "/devices/reading-moves/restore",
      audit: audited("device.reading_moves_restore", theOrganization),
      operationId: "restoreDeviceReadingMoves",
      tags,
      summary: "Give each moved reading back to its first patient: a new Observation from the version before the move, and its vitals sample (admin)",
      security,
      middleware: manage,
      responses: { 200: { description: "What was restored", content: json(ReadingMovesRestored) }, ...commonErrors },
    }),
    async (c) => c.json(await restoreReadingMoves(c.get("ctx"), c.get("principal")), 200),
  )
  .openapi(
    createRoute({ method: "get", path: "/patients/{patientId}/vitals", operationId: "getPatientVitals", tags, summary: "A patient's vitals for one metric over the last days (spec 2.8)", security, middleware: read, request: { params: PatientParam, query: VitalsQuery }, responses: { 200: { description: "Vitals", content: json(Vitals) }, ...commonErrors, ...notFoundError } }),
    async (c) => {
      const { metric, days } = c.req.valid("query");
      const ctx = c.get("ctx");
      return c.json(await patientVitals(ctx, ctx.fhir(c.get("principal")), c.req.valid("param").patientId, metric, days), 200);
    },
  )
  .openapi(
    createRoute({ method: "get", path: "/patients/{patientId}/timeline", tags, summary: "A patient's events, newest first (device readings as `Device reading`)", security, middleware: read, request: { params: PatientParam, query: TimelineQuery }, responses: { 200: { description: "Page", content: json(pageOf("events", TimelineEvent)) }, ...commonErrors, ...notFoundError } }),
    async (c) => {
      const { limit, offset, type } = c.req.valid("query");
      const types = (Array.isArray(type) ? type : type ? [type] : []).flatMap((t) => t.split(",")).map((t) => t.trim()).filter(Boolean);
      const { events, total } = await patientTimeline(c.get("ctx"), c.get("principal"), c.req.valid("param").patientId, types.length ? types : undefined, limit, offset);
      return c.json({ events, total_count: total }, 200);
    },
  );

// The readings body is checked item by item (one bad reading must not refuse the batch), so the
// item schema is documented as its own component rather than validated by the route.
deviceRoutes.openAPIRegistry.register("DeviceReading", ReadingInput);
