// A Health Connect record as the companion app sends it: the Jetpack record's fields by their
// Kotlin names (recordType is the class name) and its metadata, whose clientRecordId and
// clientRecordVersion make uploads idempotent.
import { z } from "@hono/zod-openapi";
import { type Constants, DEVICE_TYPES, RECORDING_METHODS } from "./sdk";

const instant = z.string().datetime({ offset: true, message: "an ISO 8601 instant (Instant.toString())" });

/** An SDK integer constant, by value or by name (Device.TYPE_WATCH: 1 or "TYPE_WATCH"), read as its value. */
const constant = (constants: Constants, example: string) =>
  z
    .union([z.number().int(), z.enum(Object.keys(constants) as [string, ...string[]])], { error: `an integer constant or one of ${Object.keys(constants).join(", ")}` })
    .transform((v) => (typeof v === "number" ? v : (constants[v] as number)))
    .openapi({ example, description: `By value or by name (${Object.keys(constants).join(", ")})` });
/** The SDK's nullable strings (Device.manufacturer, Metadata.clientRecordId): null is absent. */
const nullableText = (max: number) => z.string().max(max).nullish();

export const HealthConnectRecordInput = z
  .object({
    recordType: z.string().min(1).max(60).openapi({ example: "HeartRateRecord" }),
    metadata: z
      .object({
        id: z.string().min(1).max(200).optional().openapi({ description: "Health Connect's own record id (used when there is no clientRecordId)" }),
        clientRecordId: z.string().min(1).max(200).nullish(),
        clientRecordVersion: z.number().int().min(0).default(0),
        dataOrigin: z.object({ packageName: z.string().max(200) }).partial().nullish(),
        // Metadata.device is nullable (a manual entry names none); each of its fields is optional.
        device: z.object({ manufacturer: nullableText(200), model: nullableText(200), type: constant(DEVICE_TYPES, "TYPE_WATCH").optional() }).nullish(),
        recordingMethod: constant(RECORDING_METHODS, "RECORDING_METHOD_AUTOMATICALLY_RECORDED").optional(),
      })
      .refine((m) => Boolean(m.clientRecordId) || m.id !== undefined, { message: "clientRecordId or id is required", path: ["clientRecordId"] }),
    time: instant.optional(),
    startTime: instant.optional(),
    endTime: instant.optional(),
  })
  .passthrough()
  .openapi("HealthConnectRecord", {
    description:
      "Plus the record type's own fields (samples, count, weight.inKilograms or any accessor of its unit class, systolic.inMillimetersOfMercury, percentage.value, stages with stage by value or name …)",
  });

export const HealthConnectUploadBody = z
  .object({
    granted_at: instant.optional().openapi({ description: "When the patient first granted the app Health Connect access (the first upload fixes it; default: now)" }),
    records: z.array(z.unknown()).min(1).max(1000).openapi({ description: "HealthConnectRecord items (≤ 1000), each checked on its own" }),
  })
  .openapi("HealthConnectUpload");
