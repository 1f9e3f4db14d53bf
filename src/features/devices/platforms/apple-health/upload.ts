// The companion app's JSON batches of HealthKit samples: each sample checked on its own (a bad
// one is rejected with its field, the rest go in), mapped, and stored idempotently on the
// HealthKit sample UUID, so an app re-sending a batch after a lost answer adds nothing.
import type { z } from "@hono/zod-openapi";
import type { OrgContext } from "../../../../platform/org-context";
import type { DeviceLinkView } from "../services";
import { type ItemOutcome, storeItems, type UploadAnswer } from "../companion/store-items";
import { APPLE_HEALTH_KIND, mapHealthKitSample } from "./mapping";
import { HealthKitSampleInput } from "./schemas";

type SampleInput = z.infer<typeof HealthKitSampleInput>;

const toSample = (s: SampleInput): Parameters<typeof mapHealthKitSample>[1] => ({
  type: s.type,
  id: s.uuid,
  ...(s.value === undefined ? {} : { value: s.value }),
  ...(s.unit ? { unit: s.unit } : {}),
  start: s.startDate,
  end: s.endDate,
  ...(s.sourceName ? { sourceName: s.sourceName } : {}),
  ...(s.device ? { device: s.device } : {}),
  ...(s.objects ? { objects: s.objects.map(toSample) } : {}),
});

export async function uploadHealthKitSamples(data: OrgContext, device: DeviceLinkView, samples: readonly unknown[]): Promise<UploadAnswer> {
  const linked = { deviceId: device.deviceId, patientId: device.patientId };
  const outcomes = samples.map((raw, i): ItemOutcome => {
    const parsed = HealthKitSampleInput.safeParse(raw);
    if (!parsed.success) return { errors: parsed.error.issues.map((e) => ({ path: ["samples", i, ...e.path].join(".").replace(/\.(\d+)/g, "[$1]"), message: e.message })) };
    return mapHealthKitSample(linked, toSample(parsed.data));
  });
  return storeItems(data, APPLE_HEALTH_KIND, outcomes, "samples");
}
