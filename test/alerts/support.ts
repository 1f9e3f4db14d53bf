// Alert test helpers: a patient with a device in the org's FHIR store, readings stored as
// Observations (as the device platform will store them) and handed to evaluateReadings.
import type { Reading } from "../../src/features/devices/reading";
import type { Resource } from "../../src/features/fhir/port";
import { type StoredReading, evaluateReadings } from "../../src/features/alerts/evaluate-readings";
import type { Principal } from "../../src/features/tenancy/auth/permissions";
import type { Tenant } from "../support/tenants";

export const adminOf = (t: Tenant): Principal => ({ orgId: t.orgId, keyId: t.keyId, keyName: "admin key", role: "admin", scopes: [] });

export async function patientWithDevice(t: Tenant): Promise<{ patientId: string; deviceId: string }> {
  const fhir = t.ctx.fhir(adminOf(t));
  const patient = await fhir.create({ resourceType: "Patient", name: [{ family: "Watch", given: ["Ada"] }] });
  const patientId = patient.resource.id as string;
  const device = await fhir.create({ resourceType: "Device", deviceName: [{ name: "Ring", type: "user-friendly-name" }], patient: { reference: `Patient/${patientId}` } });
  return { patientId, deviceId: device.resource.id as string };
}

let seq = 0;

/** A reading of `metric` at `at`, stored as an Observation first. */
export async function stored(t: Tenant, who: { patientId: string; deviceId: string }, metric: string, value: number | undefined, at: string, extra: Partial<Reading> = {}): Promise<StoredReading> {
  const reading: Reading = { patientId: who.patientId, deviceId: who.deviceId, metric, unit: "/min", time: { at }, platform: "test", sourceRecordId: `r${++seq}`, ...(value === undefined ? {} : { value }), ...extra };
  const obs = await t.ctx.fhir(adminOf(t)).create({
    resourceType: "Observation",
    status: "final",
    code: { text: metric },
    subject: { reference: `Patient/${who.patientId}` },
    device: { reference: `Device/${who.deviceId}` },
    effectiveDateTime: at,
    ...(value === undefined ? { dataAbsentReason: { text: "sentinel" } } : { valueQuantity: { value, unit: reading.unit } }),
  });
  return { reading, observationId: obs.resource.id as string };
}

/** Readings every `stepMinutes` from `start`, one per value. */
export async function series(t: Tenant, who: { patientId: string; deviceId: string }, metric: string, values: (number | undefined)[], start: Date, stepMinutes = 1): Promise<StoredReading[]> {
  const out: StoredReading[] = [];
  for (const [i, v] of values.entries()) out.push(await stored(t, who, metric, v, new Date(start.getTime() + i * stepMinutes * 60_000).toISOString()));
  return out;
}

export const evaluate = (t: Tenant, readings: StoredReading[]) => evaluateReadings(t.ctx, readings);

export async function json<T>(res: Response | Promise<Response>): Promise<T> {
  return (await (await res).json()) as T;
}

/** A stored resource with the fields alert tests look at. */
export interface ReadResource extends Resource {
  status?: string;
  statusReason?: { text?: string };
  implicated?: { reference: string }[];
  code?: { coding: { code: string }[] };
  mitigation?: { action: { text: string } }[];
}

export const readResource = (t: Tenant, type: string, id: string) => t.ctx.fhir(adminOf(t)).read(type, id) as Promise<ReadResource>;
