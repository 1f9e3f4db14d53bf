// The companion app's HealthKit sample (HealthKit's own names: uuid, type identifier, value in
// the sample's unit, startDate/endDate, source and device) and the upload's answer.
import { z } from "@hono/zod-openapi";

const instant = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?\s?(Z|[+-]\d{2}:?\d{2})$/, "an ISO 8601 date-time with its offset")
  .refine((v) => !Number.isNaN(Date.parse(v.replace(" ", "T").replace(/ ([+-]\d{2})(\d{2})$/, "$1:$2"))), "not a date-time");

const base = {
  uuid: z.string().uuid().openapi({ description: "HealthKit's sample UUID: what makes a re-sent sample a duplicate" }),
  type: z.string().min(1).max(100).openapi({ example: "HKQuantityTypeIdentifierHeartRate" }),
  value: z.union([z.number(), z.string().max(100)]).optional().openapi({ description: "Quantity in `unit` (OxygenSaturation is HealthKit's fraction, 0.97), or a category value (HKCategoryValueSleepAnalysisAsleepREM)" }),
  unit: z.string().max(40).optional().openapi({ example: "count/min" }),
  startDate: instant,
  endDate: instant,
  sourceName: z.string().max(200).optional(),
  device: z.string().max(500).optional().openapi({ description: "HKDevice name (or its description)" }),
};

const Part = z.object(base);

export const HealthKitSampleInput = z
  .object({ ...base, objects: z.array(Part).max(10).optional().openapi({ description: "A correlation's samples (HKCorrelationTypeIdentifierBloodPressure: systolic and diastolic)" }) })
  .openapi("HealthKitSample");

export const HealthKitUploadBody = z.object({ samples: z.array(z.unknown()).min(1).max(1000).openapi({ description: "HealthKitSample items (≤ 1000), each checked on its own" }) }).openapi("HealthKitUpload");
