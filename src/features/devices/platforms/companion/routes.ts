// Companion-app endpoints. Public (no API key; the device's upload token authenticates, and it
// names the org's device): Apple Health sample batches and export.xml, Health Connect records.
// Authenticated: issuing, listing and revoking a device's upload tokens (admin and clinician).
import { createRoute, z } from "@hono/zod-openapi";
import { requirePermission } from "../../../tenancy";
import { bodyLimit } from "../../../../platform/http/body-limit";
import { absoluteUrl } from "../../../../platform/http/public-url";
import { createRouter } from "../../../../platform/http/router";
import { commonErrors, errorResponse, json, notFoundError, PageQuery, pageOf, security } from "../../../../platform/http/schemas";
import { DeviceIdParam } from "../schemas";
import { HealthKitSampleInput, HealthKitUploadBody } from "../apple-health/schemas";
import { startExportImport } from "../apple-health/start-import";
import { uploadHealthKitSamples } from "../apple-health/upload";
import { HealthConnectRecordInput, HealthConnectUploadBody } from "../health-connect/schemas";
import { uploadHealthConnectRecords } from "../health-connect/upload";
import { IssuedUploadToken, OrgParam, presentToken, TokenParams, UploadAnswer, UploadToken, UploadTokenBody } from "./schemas";
import { authenticateUpload, issueUploadToken, listUploadTokens, revokeUploadToken, uploadTokenRefused } from "./upload-tokens";
import { AUDITED_BY_FHIR_STORE, audited, notAudited } from "../../../audit";

const tags = ["Companion apps"];
const sync = requirePermission("devices:sync");
const uploadSecurity = [{ uploadToken: [] }];
const uploadErrors = { 400: errorResponse("Body is not JSON or not a batch"), 401: errorResponse("Upload token missing, unknown or revoked"), 403: errorResponse("The token is for another kind of device"), 413: errorResponse("Body too large") };

const ImportStarted = z
  .object({ sync_id: z.string(), state: z.literal("queued"), bytes: z.number().int(), status_url: z.string().openapi({ description: "The sync log (API key: admin or clinician)" }) })
  .openapi("AppleHealthImportStarted");

/** Public routes: mounted under /api before API-key authentication. */
export const companionPublicRoutes = createRouter()
  .openapi(
    createRoute({
      method: "put",
      path: "/v1/companion/{orgId}/apple-health/export",
      // The patient's own upload, not a management action.
      audit: notAudited("a companion app's upload (upload token): imported in the background and recorded in the sync log; its readings are FHIR writes the store audits"),
      operationId: "uploadAppleHealthExport",
      tags,
      security: uploadSecurity,
      summary: "Upload an Apple Health export.xml (streamed to storage, then imported in chunks)",
      description:
        "Authorization: Bearer <upload token>. The body is the uncompressed export.xml from Health → Export All Health Data, sent with a " +
        "Content-Length (411 without; 413 above 4 GiB). It is streamed into R2, never held whole, and imported a chunk at a time by a " +
        "Durable Object; progress (bytes, records, Observations created, duplicates, skipped by reason) is in the sync log. Records inside " +
        "a Correlation are read from the correlation only (export.xml repeats them at top level). Re-importing a newer export adds only what is new.",
      request: { params: OrgParam, body: { required: true, content: { "application/xml": { schema: z.string().openapi({ format: "binary" }) } } } },
      responses: { 202: { description: "Import queued", content: json(ImportStarted) }, ...uploadErrors, 411: errorResponse("Content-Length missing"), ...notFoundError },
    }),
    async (c) => {
      const data = await c.get("contexts").forPublicOrg(c.req.valid("param").orgId, uploadTokenRefused);
      const device = await authenticateUpload(data, c.req.header("authorization"), "ios_health_app");
      const { syncId, size } = await startExportImport(data, device, c.req.raw.body, c.req.header("content-length"), `upload-token:${device.deviceId}`);
      return c.json({ sync_id: syncId, state: "queued" as const, bytes: size, status_url: absoluteUrl(c, `/api/v1/sync-logs/${syncId}`) }, 202);
    },
  )
  .openapi(
  createRoute({
    method: "post",
    path: "/v1/companion/{orgId}/apple-health/samples",
    audit: AUDITED_BY_FHIR_STORE,
    operationId: "uploadHealthKitSamples",
    tags,
    security: uploadSecurity,
    middleware: bodyLimit,
    summary: "Upload a batch of HealthKit samples from the companion iOS app",
    description:
      "Authorization: Bearer <upload token> (issued for the patient's device). Each sample (HealthKitSample) is checked on its own; " +
      "samples are idempotent on their HealthKit UUID. OxygenSaturation is HealthKit's fraction (0.97 → 97 %), mass in lb is converted " +
      "to kg, HeartRateVariabilitySDNN stays SDNN (LOINC 80404-7). Blood pressure comes as an HKCorrelationTypeIdentifierBloodPressure with its two samples in `objects`.",
    request: { params: OrgParam, body: { required: true, content: { "application/json": { schema: HealthKitUploadBody } } } },
    responses: { 200: { description: "Per-sample results", content: json(UploadAnswer) }, ...uploadErrors, ...notFoundError },
  }),
  async (c) => {
    const data = await c.get("contexts").forPublicOrg(c.req.valid("param").orgId, uploadTokenRefused);
    const device = await authenticateUpload(data, c.req.header("authorization"), "ios_health_app");
    return c.json(await uploadHealthKitSamples(data, device, c.req.valid("json").samples), 200);
  },
);
companionPublicRoutes.openapi(
  createRoute({
    method: "post",
    path: "/v1/companion/{orgId}/health-connect/records",
    audit: AUDITED_BY_FHIR_STORE,
    operationId: "uploadHealthConnectRecords",
    tags,
    security: uploadSecurity,
    middleware: bodyLimit,
    summary: "Upload a batch of Health Connect records from the companion Android app",
    description:
      "Authorization: Bearer <upload token>. Each record (HealthConnectRecord) is checked on its own and keyed by `metadata.clientRecordId` " +
      "(else `metadata.id`) and `metadata.clientRecordVersion`: a version not higher than the stored one is a duplicate; a higher one " +
      "replaces it (the older version's Observations become entered-in-error). Records ending more than 30 days before the first grant " +
      "(`granted_at` of the device's first upload) are rejected with that reason.",
    request: { params: OrgParam, body: { required: true, content: { "application/json": { schema: HealthConnectUploadBody } } } },
    responses: { 200: { description: "Per-record results", content: json(UploadAnswer) }, ...uploadErrors, ...notFoundError },
  }),
  async (c) => {
    const data = await c.get("contexts").forPublicOrg(c.req.valid("param").orgId, uploadTokenRefused);
    const device = await authenticateUpload(data, c.req.header("authorization"), "android_health_app");
    const body = c.req.valid("json");
    return c.json(await uploadHealthConnectRecords(data, device, body.records, body.granted_at), 200);
  },
);
companionPublicRoutes.openAPIRegistry.register("HealthKitSample", HealthKitSampleInput);
companionPublicRoutes.openAPIRegistry.register("HealthConnectRecord", HealthConnectRecordInput);
companionPublicRoutes.openAPIRegistry.registerComponent("securitySchemes", "uploadToken", { type: "http", scheme: "bearer", description: "A companion app's upload token (POST /api/v1/device-platforms/links/{deviceId}/upload-tokens)" });

/** Authenticated routes, under /api/v1/device-platforms. */
export const companionRoutes = createRouter()
  .openapi(
    createRoute({
      method: "post",
      path: "/links/{deviceId}/upload-tokens",
      audit: audited("device.upload_token_issue", { response: "id" }),
      operationId: "issueDeviceUploadToken",
      tags,
      security,
      middleware: sync,
      summary: "Issue an upload token for a companion-app device (Apple Health, Health Connect)",
      description: "Admin and clinician. The token is answered once; only its SHA-256 is stored.",
      request: { params: DeviceIdParam, body: { required: false, content: json(UploadTokenBody) } },
      responses: { 201: { description: "Issued", content: json(IssuedUploadToken) }, ...commonErrors, ...notFoundError },
    }),
    async (c) => {
      const ctx = c.get("ctx");
      const label = (c.req.valid("json") as { label?: string } | undefined)?.label;
      const { row, token } = await issueUploadToken(ctx, c.req.valid("param").deviceId, c.get("principal").keyId, label);
      return c.json({ ...presentToken(row), token, upload_base_url: absoluteUrl(c, `/api/v1/companion/${encodeURIComponent(ctx.orgId)}`) }, 201);
    },
  )
  .openapi(
    createRoute({ method: "get", path: "/links/{deviceId}/upload-tokens", operationId: "listDeviceUploadTokens", tags, security, middleware: sync, summary: "A device's upload tokens (never the tokens themselves)", request: { params: DeviceIdParam, query: PageQuery }, responses: { 200: { description: "Page", content: json(pageOf("tokens", UploadToken)) }, ...commonErrors, ...notFoundError } }),
    async (c) => {
      const { limit, offset } = c.req.valid("query");
      const { rows, total } = await listUploadTokens(c.get("ctx"), c.req.valid("param").deviceId, limit, offset);
      return c.json({ tokens: rows.map(presentToken), total_count: total }, 200);
    },
  )
  .openapi(
    createRoute({ method: "delete", path: "/links/{deviceId}/upload-tokens/{tokenId}", operationId: "revokeDeviceUploadToken", audit: audited("device.upload_token_revoke", { param: "tokenId" }), tags, security, middleware: sync, summary: "Revoke an upload token (at once)", request: { params: TokenParams }, responses: { 204: { description: "Revoked" }, ...commonErrors, ...notFoundError } }),
    async (c) => {
      const { deviceId, tokenId } = c.req.valid("param");
      await revokeUploadToken(c.get("ctx"), deviceId, tokenId);
      return c.body(null, 204);
    },
  );
