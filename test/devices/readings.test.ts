// POST /api/v1/devices/readings: readings become Observations of the spec's shape linked to
// their Device, idempotently; bad readings are answered per item with the field; two devices'
// readings of the same instant both stay; roles and tenancy.
import { describe, expect, it } from "vitest";
import { authedFetch, createKey, createTenant } from "../support/tenants";
import { createPatient, linkDevice, minutesAgo, postReadings, reading } from "./support";

describe("device readings", () => {
  it("creates an Observation per reading with codes, UCUM value, Device reference and identifier", async () => {
    const t = await createTenant();
    const patient = await createPatient(t);
    const device = await linkDevice(t, patient);
    const at = minutesAgo(5);
    const answer = await postReadings(t, [reading(patient, device, { source_record_id: "hr-1", time: { at } })]);
    expect(answer).toMatchObject({ created: 1, duplicates: 0, rejected: 0 });
    const id = answer.results[0]!.observation_id!;
    const obs = (await (await t.fetch(`/fhir/r4/${t.orgId}/Observation/${id}`)).json()) as Record<string, unknown>;
    expect(obs).toMatchObject({
      status: "final",
      category: [{ coding: [{ code: "vital-signs" }] }],
      code: { coding: [{ system: "http://loinc.org", code: "8867-4" }, { code: "147842" }] },
      subject: { reference: `Patient/${patient}` },
      effectiveDateTime: new Date(at).toISOString(),
      valueQuantity: { value: 72, unit: "bpm", system: "http://unitsofmeasure.org", code: "/min" },
      device: { reference: `Device/${device}`, display: "Oura Ring Gen3" },
      identifier: [{ system: "urn:cdis:device-reading", value: `smart_ring|${device}|hr-1|heart_rate` }],
    });
    const dev = (await (await t.fetch(`/fhir/r4/${t.orgId}/Device/${device}`)).json()) as Record<string, unknown>;
    expect(dev).toMatchObject({ patient: { reference: `Patient/${patient}` }, deviceName: [{ name: "Oura Ring Gen3" }], status: "active" });
  });

  it("is idempotent: a redelivered reading (same batch or later) meets its Observation", async () => {
    const t = await createTenant();
    const patient = await createPatient(t);
    const device = await linkDevice(t, patient);
    const r = reading(patient, device, { source_record_id: "dup-1" });
    const first = await postReadings(t, [r, r]);
    expect(first.results.map((x) => x.status)).toEqual(["created", "duplicate"]);
    const again = await postReadings(t, [r]);
    expect(again.results[0]).toMatchObject({ status: "duplicate", observation_id: first.results[0]!.observation_id });
    const found = (await (await t.fetch(`/fhir/r4/${t.orgId}/Observation?identifier=urn:cdis:device-reading|smart_ring|${device}|dup-1|heart_rate`)).json()) as { entry?: unknown[] };
    expect(found.entry).toHaveLength(1);
    const vitals = (await (await t.fetch(`/api/v1/patients/${patient}/vitals?metric=heart_rate&days=1`)).json()) as { summary: { count: number } };
    expect(vitals.summary.count).toBe(1);
  });

  it("keeps the same metric at the same instant from two devices, each with its device", async () => {
    const t = await createTenant();
    const patient = await createPatient(t);
    const ring = await linkDevice(t, patient);
    const watch = await linkDevice(t, patient, { name: "Watch", platform: "sports_watch" });
    const at = minutesAgo(3);
    const answer = await postReadings(t, [reading(patient, ring, { time: { at }, source_record_id: "x" }), reading(patient, watch, { time: { at }, source_record_id: "x", platform: "sports_watch", value: 75 })]);
    expect(answer.created).toBe(2);
    const bundle = (await (await t.fetch(`/fhir/r4/${t.orgId}/Observation?patient=${patient}`)).json()) as { entry: { resource: { device: { reference: string } } }[] };
    expect(bundle.entry.map((e) => e.resource.device.reference).sort()).toEqual([`Device/${ring}`, `Device/${watch}`].sort());
  });

  it("answers bad readings per item with the field and ingests the rest", async () => {
    const t = await createTenant();
    const patient = await createPatient(t);
    const device = await linkDevice(t, patient);
    const other = await createPatient(t, "Other");
    const answer = await postReadings(t, [
      reading(patient, device),
      reading(patient, device, { metric: "mood" }),
      reading(patient, device, { unit: "furlongs" }),
      { patient_id: patient },
      reading(patient, "no-such-device"),
      reading(other, device),
      reading(patient, device, { time: { at: "last tuesday" } }),
    ]);
    expect(answer.results.map((r) => r.status)).toEqual(["created", "rejected", "rejected", "rejected", "rejected", "rejected", "rejected"]);
    expect(answer.results[1]!.errors![0]!.path).toBe("readings[1].metric");
    expect(answer.results[2]!.errors![0]!.path).toBe("readings[2].unit");
    expect(answer.results[3]!.errors!.map((e) => e.path)).toContain("readings[3].device_id");
    expect(answer.results[4]!.errors![0]!.path).toBe("readings[4].deviceId");
    expect(answer.results[5]!.errors![0]!.path).toBe("readings[5].patientId");
    expect(answer.results[6]!.errors![0]!.path).toBe("readings[6].time.at");
  });

  it("records sentinels as dataAbsentReason and keeps them out of the vitals", async () => {
    const t = await createTenant();
    const patient = await createPatient(t);
    const device = await linkDevice(t, patient, { platform: "sports_watch", name: "Garmin" });
    const answer = await postReadings(t, [
      reading(patient, device, { metric: "stress", value: -2, unit: "score", platform: "sports_watch" }),
      reading(patient, device, { metric: "stress", value: 35, unit: "score", platform: "sports_watch" }),
      reading(patient, device, { metric: "stress", value: null, unit: "score", platform: "sports_watch" }),
    ]);
    expect(answer.created).toBe(3);
    const sentinel = (await (await t.fetch(`/fhir/r4/${t.orgId}/Observation/${answer.results[0]!.observation_id}`)).json()) as Record<string, unknown>;
    expect(sentinel.valueQuantity).toBeUndefined();
    expect(sentinel).toMatchObject({ dataAbsentReason: { coding: [{ code: "error" }] } });
    const vitals = (await (await t.fetch(`/api/v1/patients/${patient}/vitals?metric=stress&days=1`)).json()) as { summary: Record<string, number> };
    expect(vitals.summary).toEqual({ min: 35, max: 35, average: 35, count: 1 });
  });

  it("takes readings from service and admin keys only, and never another org's device", async () => {
    const t = await createTenant();
    const patient = await createPatient(t);
    const device = await linkDevice(t, patient);
    const service = authedFetch(t.orgId, (await createKey(t.orgId, "service")).key);
    const clinician = authedFetch(t.orgId, (await createKey(t.orgId, "clinician")).key);
    const body = { method: "POST", json: { readings: [reading(patient, device)] } };
    expect((await service("/api/v1/devices/readings", body)).status).toBe(200);
    expect((await clinician("/api/v1/devices/readings", body)).status).toBe(403);
    const b = await createTenant();
    const cross = await postReadings(b, [reading(patient, device)]);
    expect(cross.results[0]).toMatchObject({ status: "rejected", errors: [{ path: "readings[0].deviceId" }] });
    expect((await b.fetch("/api/v1/devices/readings", { method: "POST", json: { readings: [] } })).status).toBe(400);
  });
});
