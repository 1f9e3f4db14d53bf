// The organization's source priority (the change is admin-only, checked by the route) and the
// ranking the vitals query applies with it: where two devices report a metric in the same hour,
// the device whose platform comes first in the metric's list (else the "default" list) counts;
// platforms not listed come after the listed ones; between equals, the one with more samples.
import type { OrgData } from "../../../platform/org-data";
import type { Principal } from "../../tenancy";
import type { VitalsMetric } from "../metrics/table";
import { patientDevicePlatforms } from "../store/links";
import { readSourcePriority, type SourcePriority, writeSourcePriority } from "../store/source-priority";

export const DEFAULT_PRIORITY_KEY = "default";

export const getSourcePriority = (data: OrgData): Promise<SourcePriority> => readSourcePriority(data);

export function setSourcePriority(data: OrgData, principal: Principal, priorities: Record<string, string[]>): Promise<SourcePriority> {
  return writeSourcePriority(data, priorities, principal.keyId);
}

/** Rank of each of the patient's devices for `metric` (lower counts first), or undefined when the org set no priority for it. */
export async function sourceRank(data: OrgData, patientId: string, metric: VitalsMetric): Promise<((deviceId: string) => number) | undefined> {
  const { priorities } = await readSourcePriority(data);
  const order = priorities[metric] ?? priorities[DEFAULT_PRIORITY_KEY];
  if (!order?.length) return undefined;
  const platformOf = await patientDevicePlatforms(data, patientId);
  return (deviceId) => {
    const i = order.indexOf(platformOf.get(deviceId) ?? "");
    return i < 0 ? order.length : i;
  };
}
