// A platform adapter for the tests: pages the stand-in vendor on loopback
// (test/setup/device-vendor-server.ts) through the outbound-guarded fetch it is handed. A file
// that syncs through it calls useTestVendor() in beforeAll.
import { inject } from "vitest";
import { type PlatformAdapter, PlatformError } from "../../src/features/devices/platform-adapter";
import { useStandInPlatforms } from "../support/service-profile";

const UNITS: Record<string, string> = { heart_rate: "bpm", spo2: "fraction", ecg: "mV" };

const adapter: PlatformAdapter = {
  kind: "test_vendor",
  dataTypes: ["heart_rate", "spo2", "ecg"],
  maxSyncDays: 30,
  async fetchPage(call, device, range) {
    const url = new URL(`${inject("deviceVendorUrl")}/users/${device.platformUserId}/${range.dataType}`);
    url.search = new URLSearchParams({ start: range.from, end: range.to, page: range.cursor ?? "0" }).toString();
    const res = await call.fetch(url, { headers: { authorization: `Bearer ${call.tokens?.accessToken}` } });
    if (res.status === 429) throw new PlatformError("rate_limited", "vendor rate limit", Number(res.headers.get("retry-after")));
    if (res.status === 401) throw new PlatformError("unauthorized", "token refused");
    if (!res.ok) throw new PlatformError("invalid", `${res.status}: ${await res.text()}`);
    const body = (await res.json()) as { data: { id: string; ts: string; value: number }[]; next_page: number | null };
    return {
      readings: body.data.map((d) => ({ patientId: device.patientId, deviceId: device.deviceId, metric: range.dataType, value: d.value, unit: UNITS[range.dataType]!, time: { at: d.ts }, platform: "test_vendor", sourceRecordId: d.id })),
      ...(body.next_page !== null ? { nextCursor: String(body.next_page) } : {}),
    };
  },
};
/** This file's deployment syncs `test_vendor` devices through the adapter above. */
export const useTestVendor = () => useStandInPlatforms(adapter);
