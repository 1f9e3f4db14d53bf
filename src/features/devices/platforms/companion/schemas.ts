// API schemas of companion-app uploads: upload tokens (management) and the per-item answer.
import { z } from "@hono/zod-openapi";
import type { DeviceUploadTokenRow } from "./tables";

export const OrgParam = z.object({ orgId: z.string().min(1).max(128).openapi({ param: { name: "orgId", in: "path" }, description: "The organization the device belongs to" }) });
export const TokenParams = z.object({
  deviceId: z.string().min(1).max(128).openapi({ param: { name: "deviceId", in: "path" } }),
  tokenId: z.string().min(1).max(128).openapi({ param: { name: "tokenId", in: "path" } }),
});

export const UploadTokenBody = z.object({ label: z.string().max(200).optional().openapi({ description: "Which phone or app install, for the list" }) }).openapi("UploadTokenRequest");

export const UploadToken = z
  .object({ id: z.string(), device_id: z.string(), label: z.string().nullable(), created_by: z.string(), created_at: z.string(), last_used_at: z.string().nullable(), revoked_at: z.string().nullable() })
  .openapi("UploadToken");

export const IssuedUploadToken = UploadToken.extend({
  token: z.string().openapi({ description: "The bearer token for the companion app: shown once, only its SHA-256 is kept" }),
  upload_base_url: z.string().openapi({ description: "Where the app uploads (…/companion/{orgId})" }),
}).openapi("IssuedUploadToken");

export const presentToken = (r: DeviceUploadTokenRow) => ({ id: r.id, device_id: r.deviceId, label: r.label, created_by: r.createdBy, created_at: r.createdAt, last_used_at: r.lastUsedAt, revoked_at: r.revokedAt });

const FieldProblem = z.object({ path: z.string(), message: z.string() });

export const UploadAnswer = z
  .object({
    results: z.array(
      z.object({
        index: z.number().int(),
        status: z.enum(["created", "updated", "duplicate", "skipped", "rejected"]).openapi({
          description:
            "updated: a record already stored changed (a higher Health Connect clientRecordVersion, a HealthKit sample re-sent under its UUID with another value): its Observations have new versions, those the new version no longer has are entered-in-error",
        }),
        observation_ids: z.array(z.string()).optional(),
        reason: z.string().optional().openapi({ description: "Why a skipped item is not a reading" }),
        errors: z.array(FieldProblem).optional(),
      }),
    ),
    created: z.number().int(),
    updated: z.number().int(),
    duplicates: z.number().int(),
    skipped: z.number().int(),
    rejected: z.number().int(),
  })
  .openapi("CompanionUploadResult");
