// Companion-app test helpers: the device core wired as the Worker wires it, a patient with a
// companion device, an upload token issued through the real endpoint, uploads with it, and
// waiting for an import's sync log.
import { devicePlatformServices } from "../../src/features/devices/platform-services";
import { useDevicePlatformServices } from "../support/service-profile";
import { createPatient, linkDevice } from "../devices/support";
import { call, type Tenant } from "../support/tenants";

export const wireDeviceCore = () => useDevicePlatformServices(devicePlatformServices);

export interface CompanionDevice {
  patientId: string;
  deviceId: string;
  token: string;
  tokenId: string;
}

export async function companionDevice(t: Tenant, platform: "ios_health_app" | "android_health_app", name = "Phone"): Promise<CompanionDevice> {
  const patientId = await createPatient(t, name);
  const deviceId = await linkDevice(t, patientId, { platform, name });
  const res = await t.fetch(`/api/v1/device-platforms/links/${deviceId}/upload-tokens`, { method: "POST", json: { label: name } });
  if (res.status !== 201) throw new Error(`token: ${res.status} ${await res.text()}`);
  const { token, id } = (await res.json()) as { token: string; id: string };
  return { patientId, deviceId, token, tokenId: id };
}

export const upload = (orgId: string, path: string, token: string | undefined, init: RequestInit & { json?: unknown } = {}) =>
  call(`/api/v1/companion/${orgId}/${path}`, { method: "POST", ...init, headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(init.headers as Record<string, string> | undefined) } });

export interface SyncLogView {
  state: string;
  data_types: { data_type: string; state: string; pages_fetched: number; observations_created: number; duplicates_skipped: number; readings_rejected: number; errors: { reason: string }[]; bytes_total?: number; bytes_processed?: number; records_read?: number; skipped_by_reason?: Record<string, number> }[];
}

export async function finishedSync(t: Tenant, syncId: string, timeoutMs = 30_000): Promise<SyncLogView> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const log = (await (await t.fetch(`/api/v1/sync-logs/${syncId}`)).json()) as SyncLogView;
    if (log.state === "completed" || log.state === "failed" || log.state === "partially_failed") return log;
    if (Date.now() > until) throw new Error(`sync ${syncId} not finished: ${JSON.stringify(log)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export interface Obs {
  id: string;
  status: string;
  code: { coding: { system: string; code: string }[] };
  valueQuantity?: { value: number; unit: string; code: string };
  component?: { code: { coding: { code: string }[] }; valueQuantity: { value: number } }[];
  identifier?: { value: string }[];
  effectiveDateTime?: string;
  effectivePeriod?: { start: string; end: string };
}

export const codeOf = (o: Obs) => o.code.coding[0]?.code;

export async function observations(t: Tenant, patientId: string): Promise<Obs[]> {
  const bundle = (await (await t.fetch(`/fhir/r4/${t.orgId}/Observation?subject=Patient/${patientId}&_count=200`)).json()) as { entry?: { resource: Obs }[] };
  return (bundle.entry ?? []).map((e) => e.resource);
}
