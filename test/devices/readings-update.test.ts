// A vendor's record re-sent with other values under the same id (Oura's day growing its steps,
// WHOOP re-scoring) updates its Observation: a new version, the new value in the vitals, the
// alert rules evaluated again; an identical re-delivery writes nothing; a retracted reading stays
// retracted; another organization's identical record is its own.
import { describe, expect, it } from "vitest";
import { createTenant, type Tenant } from "../support/tenants";
import { createPatient, linkDevice, minutesAgo, postReadings, reading } from "./support";

type Obs = { id: string; status: string; meta: { versionId: string }; valueQuantity?: { value: number }; effectiveDateTime?: string };

const readObs = async (t: Tenant, id: string) => (await (await t.fetch(`/fhir/r4/${t.orgId}/Observation/${id}`)).json()) as Obs;
const history = async (t: Tenant, id: string) =>
  ((await (await t.fetch(`/fhir/r4/${t.orgId}/Observation/${id}/_history`)).json()) as { entry: { resource: Obs }[] }).entry.map((e) => e.resource);
const heartRates = async (t: Tenant, patient: string) =>
  ((await (await t.fetch(`/api/v1/patients/${patient}/vitals?metric=heart_rate&days=1`)).json()) as { data_points: { value: number }[] }).data_points.map((p) => p.value);

async function setup() {
  const t = await createTenant();
  const patient = await createPatient(t);
  const device = await linkDevice(t, patient);
  return { t, patient, device };
}

describe("a changed reading updates its Observation", () => {
  it("answers updated, writes a new version, and the vitals show the new value in place of the old", async () => {
    const { t, patient, device } = await setup();
    const at = minutesAgo(20);
    const first = await postReadings(t, [reading(patient, device, { source_record_id: "rec-1", value: 61, time: { at } })]);
    const id = first.results[0]!.observation_id!;
    const changed = await postReadings(t, [reading(patient, device, { source_record_id: "rec-1", value: 64, time: { at } })]);
    expect(changed).toMatchObject({ created: 0, updated: 1, duplicates: 0, rejected: 0 });
    expect(changed.results[0]).toMatchObject({ status: "updated", observation_id: id });
    expect(await readObs(t, id)).toMatchObject({ status: "final", meta: { versionId: "2" }, valueQuantity: { value: 64 } });
    expect((await history(t, id)).map((o) => [o.meta.versionId, o.valueQuantity?.value]).sort()).toEqual([
      ["1", 61],
      ["2", 64],
    ]);
    expect(await heartRates(t, patient)).toEqual([64]);
  });

  it("an identical re-delivery stays a duplicate and writes no version", async () => {
    const { t, patient, device } = await setup();
    const r = reading(patient, device, { source_record_id: "rec-2" });
    const id = (await postReadings(t, [r])).results[0]!.observation_id!;
    const again = await postReadings(t, [r]);
    expect(again).toMatchObject({ created: 0, updated: 0, duplicates: 1 });
    expect((await readObs(t, id)).meta.versionId).toBe("1");
    expect(await history(t, id)).toHaveLength(1);
  });

  it("a moved time moves the sample; the same record twice in one batch keeps the last", async () => {
    const { t, patient, device } = await setup();
    const id = (await postReadings(t, [reading(patient, device, { source_record_id: "rec-3", value: 70, time: { at: minutesAgo(90) } })])).results[0]!.observation_id!;
    const later = minutesAgo(30);
    const both = await postReadings(t, [
      reading(patient, device, { source_record_id: "rec-3", value: 71, time: { at: later } }),
      reading(patient, device, { source_record_id: "rec-3", value: 73, time: { at: later } }),
    ]);
    expect(both.results.map((r) => r.status)).toEqual(["updated", "duplicate"]);
    expect(await readObs(t, id)).toMatchObject({ valueQuantity: { value: 73 }, effectiveDateTime: new Date(later).toISOString() });
    expect(await heartRates(t, patient)).toEqual([73]);
  });

  it("a retracted reading is not revived by a changed copy", async () => {
    const { t, patient, device } = await setup();
    const at = minutesAgo(15);
    const id = (await postReadings(t, [reading(patient, device, { source_record_id: "rec-4", value: 80, time: { at } })])).results[0]!.observation_id!;
    const stored = await readObs(t, id);
    const retract = await t.fetch(`/fhir/r4/${t.orgId}/Observation/${id}`, { method: "PUT", json: { ...stored, status: "entered-in-error" } });
    expect(retract.status).toBe(200);
    const late = await postReadings(t, [reading(patient, device, { source_record_id: "rec-4", value: 95, time: { at } })]);
    expect(late.results[0]).toMatchObject({ status: "duplicate", observation_id: id });
    expect(await readObs(t, id)).toMatchObject({ status: "entered-in-error", meta: { versionId: "2" }, valueQuantity: { value: 80 } });
  });

  it("evaluates the alert rules on the updated value", async () => {
    const { t, patient, device } = await setup();
    const rule = await t.fetch("/api/v1/alert-rules", { method: "POST", json: { patient_id: patient, metric: "heart_rate", kind: "high_value", threshold: 120, recipients: "care_team" } });
    expect(rule.status, await rule.clone().text()).toBe(201);
    const alerts = async () => ((await (await t.fetch(`/api/v1/alerts?patient_id=${patient}`)).json()) as { alerts: { kind: string; state: string }[] }).alerts;
    const at = minutesAgo(5);
    await postReadings(t, [reading(patient, device, { source_record_id: "rec-5", value: 90, time: { at } })]);
    expect(await alerts()).toEqual([]);
    expect((await postReadings(t, [reading(patient, device, { source_record_id: "rec-5", value: 150, time: { at } })])).updated).toBe(1);
    expect(await alerts()).toMatchObject([{ kind: "high_value", state: "active" }]);
  });

  it("another organization's record under the same id is its own: created there, nothing changed here", async () => {
    const a = await setup();
    const b = await setup();
    const at = minutesAgo(25);
    const id = (await postReadings(a.t, [reading(a.patient, a.device, { source_record_id: "shared", value: 60, time: { at } })])).results[0]!.observation_id!;
    const other = await postReadings(b.t, [reading(b.patient, b.device, { source_record_id: "shared", value: 99, time: { at } })]);
    expect(other).toMatchObject({ created: 1, updated: 0 });
    expect(other.results[0]!.observation_id).not.toBe(id);
    expect(await readObs(a.t, id)).toMatchObject({ meta: { versionId: "1" }, valueQuantity: { value: 60 } });
    expect(await heartRates(a.t, a.patient)).toEqual([60]);
    expect((await b.t.fetch(`/fhir/r4/${b.t.orgId}/Observation/${id}`)).status).toBe(404);
  });
});
