// Device test fixtures: a patient in the org's FHIR store, a linked device, readings in the
// API's shape.
import type { Tenant } from "../support/tenants";

export async function createPatient(t: Tenant, family = "Doe"): Promise<string> {
  const res = await t.fetch(`/fhir/r4/${t.orgId}/Patient`, { method: "POST", json: { resourceType: "Patient", name: [{ family }] } });
  if (res.status !== 201) throw new Error(`patient: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { id: string }).id;
}

export async function linkDevice(t: Tenant, patientId: string, body: Record<string, unknown> = {}): Promise<string> {
  const res = await t.fetch(`/api/v1/patients/${patientId}/devices`, { method: "POST", json: { name: "Oura Ring Gen3", platform: "smart_ring", ...body } });
  if (res.status !== 201) throw new Error(`link: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { device_id: string }).device_id;
}

export const minutesAgo = (m: number) => new Date(Date.now() - m * 60_000).toISOString();

export function reading(patientId: string, deviceId: string, over: Record<string, unknown> = {}) {
  return { patient_id: patientId, device_id: deviceId, metric: "heart_rate", value: 72, unit: "bpm", time: { at: minutesAgo(10) }, platform: "smart_ring", source_record_id: crypto.randomUUID(), ...over };
}

export interface ReadingsAnswer {
  results: { index: number; status: string; observation_id?: string; errors?: { path: string; message: string }[] }[];
  created: number;
  updated: number;
  duplicates: number;
  rejected: number;
}

export async function postReadings(t: Tenant, readings: unknown[]): Promise<ReadingsAnswer> {
  const res = await t.fetch("/api/v1/devices/readings", { method: "POST", json: { readings } });
  if (res.status !== 200) throw new Error(`readings: ${res.status} ${await res.text()}`);
  return (await res.json()) as ReadingsAnswer;
}
