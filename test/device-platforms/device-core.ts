// What the end-to-end wearable tests read back from the device core, through the public API only:
// a patient with a linked device, the patient's Observations, a sync log once it has finished,
// the vitals endpoint and the timeline.
import { forgetWebhookCredentials } from "../../src/features/devices/platforms/webhooks/credential-cache";
import type { Tenant } from "../support/tenants";

/** The org's device integration for `kind`: client id and secret plus secret extras, and the non-secret settings. */
export async function integrate(t: Tenant, kind: string, credentials: Record<string, string>, settings: Record<string, string>): Promise<string> {
  const res = await t.fetch("/api/v1/device-integrations", { method: "POST", json: { platform: kind, name: kind, credentials, settings } });
  if (res.status !== 201) throw new Error(`integration: ${res.status} ${await res.text()}`);
  forgetWebhookCredentials();
  return ((await res.json()) as { id: string }).id;
}

/** A new Patient and a device link of `kind` for it. */
export async function newPatientDevice(t: Tenant, kind: string, name = "Wearable"): Promise<{ patientId: string; deviceId: string }> {
  const patient = await t.fetch(`/fhir/r4/${t.orgId}/Patient`, { method: "POST", json: { resourceType: "Patient", name: [{ family: name }] } });
  if (patient.status !== 201) throw new Error(`patient: ${patient.status} ${await patient.text()}`);
  const patientId = ((await patient.json()) as { id: string }).id;
  const link = await t.fetch(`/api/v1/patients/${patientId}/devices`, { method: "POST", json: { platform: kind, name } });
  if (link.status !== 201) throw new Error(`device link: ${link.status} ${await link.text()}`);
  return { patientId, deviceId: ((await link.json()) as { device_id: string }).device_id };
}

export type Quantity = { value: number; unit: string; code: string; system: string };
export type Obs = {
  id: string;
  status: string;
  identifier?: { system: string; value: string }[];
  category?: { coding: { code: string }[] }[];
  code: { coding: { system: string; code: string }[]; text?: string };
  device?: { reference: string };
  valueQuantity?: Quantity;
  dataAbsentReason?: unknown;
  effectiveDateTime?: string;
  effectivePeriod?: { start: string; end: string };
  component?: { code: { coding: { code: string }[] }; valueQuantity: Quantity }[];
};

/** Every Observation of the patient (entered-in-error ones too). */
export const observations = async (t: Tenant, patientId: string): Promise<Obs[]> =>
  ((await (await t.fetch(`/fhir/r4/${t.orgId}/Observation?subject=Patient/${patientId}&_count=500`)).json()) as { entry?: { resource: Obs }[] }).entry?.map((e) => e.resource) ?? [];

export const withCode = (list: Obs[], code: string) => list.filter((o) => o.code.coding.some((c) => c.code === code));

export type SyncLogView = {
  state: string;
  data_types: { data_type: string; state: string; pages_fetched: number; readings_received: number; observations_created: number; duplicates_skipped: number; readings_rejected: number; rate_limited: number; errors: { reason: string; record?: string }[] }[];
};

/** Asks for a manual sync and waits for its log to finish. */
export async function syncAndWait(t: Tenant, deviceId: string, body: Record<string, unknown>): Promise<SyncLogView> {
  const res = await t.fetch(`/api/v1/devices/${deviceId}/sync`, { method: "POST", json: body });
  if (res.status !== 202) throw new Error(`sync: ${res.status} ${await res.text()}`);
  return syncLog(t, ((await res.json()) as { sync_id: string }).sync_id);
}

/** The sync log once its sync has finished. */
export async function syncLog(t: Tenant, id: string): Promise<SyncLogView> {
  for (let i = 0; i < 300; i++) {
    const log = (await (await t.fetch(`/api/v1/sync-logs/${id}`)).json()) as SyncLogView;
    if (log.state !== "queued" && log.state !== "running") return log;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error("the sync did not finish");
}

/** The vitals endpoint's values for one metric over the last week, sorted: the samples, and the vendor's aggregates by statistic. */
export async function vitalValues(
  t: Tenant,
  patientId: string,
  metric: string,
): Promise<{ unit: string; values: number[]; devices: string[]; aggregates: Record<string, number[]> }> {
  const res = await t.fetch(`/api/v1/patients/${patientId}/vitals?metric=${metric}&days=7`);
  if (res.status !== 200) throw new Error(`vitals ${metric}: ${res.status} ${await res.text()}`);
  type Points = { value: number; device: { id: string } }[];
  const body = (await res.json()) as { unit: string; data_points: Points; aggregates: { statistic: string; data_points: Points }[] };
  const sorted = (points: Points) => points.map((p) => p.value).sort((x, y) => x - y);
  const all = [...body.data_points, ...body.aggregates.flatMap((a) => a.data_points)];
  return {
    unit: body.unit,
    values: sorted(body.data_points),
    devices: [...new Set(all.map((p) => p.device.id))],
    aggregates: Object.fromEntries(body.aggregates.map((a) => [a.statistic, sorted(a.data_points)])),
  };
}

/** The ids of the patient's timeline events of type "Device reading" (the newest 100). */
export async function timelineReadings(t: Tenant, patientId: string): Promise<string[]> {
  const res = await t.fetch(`/api/v1/patients/${patientId}/timeline?type=Device%20reading&limit=100`);
  if (res.status !== 200) throw new Error(`timeline: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { events: { type: string; resource_id: string }[] }).events.filter((e) => e.type === "Device reading").map((e) => e.resource_id);
}
