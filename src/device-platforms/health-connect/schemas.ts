// A Health Connect record as the companion app sends it: the Jetpack record's fields by their
// Kotlin names (recordType is the class name) and its metadata, whose clientRecordId and
// clientRecordVersion make uploads idempotent.
import { z } from "@hono/zod-openapi";

const instant = z.string().datetime({ offset: true, message: "an ISO 8601 instant (Instant.toString())" });

export const HealthConnectRecordInput = z
  .object({
    recordType: z.string().min(1).max(60).openapi({ example: "HeartRateRecord" }),
    metadata: z
      .object({
        id: z.string().min(1).max(200).optional().openapi({ description: "Health Connect's own record id (used when there is no clientRecordId)" }),
        clientRecordId: z.string().min(1).max(200).optional(),
        clientRecordVersion: z.number().int().min(0).default(0),
        dataOrigin: z.object({ packageName: z.string().max(200) }).partial().optional(),
        device: z.object({ manufacturer: z.string().max(200), model: z.string().max(200), type: z.number().int() }).partial().optional(),
        recordingMethod: z.number().int().optional(),
      })
      .refine((m) => m.clientRecordId !== undefined || m.id !== undefined, { message: "clientRecordId or id is required", path: ["clientRecordId"] }),
    time: instant.optional(),
    startTime: instant.optional(),
    endTime: instant.optional(),
  })
  .passthrough()
  .openapi("HealthConnectRecord", { description: "Plus the record type's own fields (samples, count, weight.inKilograms, systolic.inMillimetersOfMercury, percentage.value, stages …)" });

export const HealthConnectUploadBody = z
  .object({
    granted_at: instant.optional().openapi({ description: "When the patient first granted the app Health Connect access (the first upload fixes it; default: now)" }),
    records: z.array(z.unknown()).min(1).max(1000).openapi({ description: "HealthConnectRecord items (≤ 1000), each checked on its own" }),
  })
  .openapi("HealthConnectUpload");
