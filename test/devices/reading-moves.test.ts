// The data migration 0017 on a state the old reading key (platform|record|metric) left behind: a
// reading's Observation that another patient's reading took over is reported, every reading
// Observation's identifier gains its device (so its redelivery meets it as before), and the
// restore gives the first patient its reading back, once. Another organization sees none of it.
import { describe, expect, it } from "vitest";
import MIGRATION from "../../migrations/data/0017_device_reading_identity.sql?raw";
import { call, createTenant, shardOf, type Tenant } from "../support/tenants";
import { createPatient, linkDevice, minutesAgo, postReadings, reading } from "./support";

type Obs = { id: string; subject: { reference: string }; device: { reference: string }; meta: { versionId: string }; valueQuantity?: { value: number }; identifier: { value: string }[] };
type Moves = { moves: Record<string, unknown>[]; total_count: number; unrestored_count: number };

const OLD = "urn:cdis:device-reading";

/** An Observation as the ingest wrote it before readings were keyed by device. */
const oldReading = (patient: string, device: string, record: string, value: number, at: string) => ({
  resourceType: "Observation",
  status: "final",
  identifier: [{ system: OLD, value: `manual|${record}|heart_rate` }],
  category: [{ coding: [{ system: "http://terminology.hl7.org/CodeSystem/observation-category", code: "vital-signs" }] }],
  code: { coding: [{ system: "http://loinc.org", code: "8867-4" }], text: "heart_rate" },
  subject: { reference: `Patient/${patient}` },
  effectiveDateTime: at,
  device: { reference: `Device/${device}`, display: "Cuff" },
  valueQuantity: { value, unit: "bpm", system: "http://unitsofmeasure.org", code: "/min" },
});

/** The migration's data statements (its table exists already: the suite applied every migration to empty shards). */
async function migrate(orgId: string) {
  const db = await shardOf(orgId);
  for (const statement of MIGRATION.split("--> statement-breakpoint").slice(1)) await db.prepare(statement).run();
}

const json = async <T>(res: Response): Promise<T> => {
  expect(res.status, await res.clone().text()).toBeLessThan(300);
  return (await res.json()) as T;
};
const find = async (t: Tenant, value: string) => json<{ entry?: { resource: Obs }[] }>(await t.fetch(`/fhir/r4/${t.orgId}/Observation?identifier=${encodeURIComponent(`${OLD}|${value}`)}`));
const heartRates = async (t: Tenant, patient: string) =>
  (await json<{ data_points: { value: number }[] }>(await t.fetch(`/api/v1/patients/${patient}/vitals?metric=heart_rate&days=1`))).data_points.map((p) => p.value).sort();

describe("migration 0017 on a state made before readings were keyed by device", () => {
  it("reports the moved reading, rewrites identifiers, and restores the first patient's reading once", async () => {
    const t = await createTenant();
    const other = await createTenant();
    const [p1, p2] = [await createPatient(t, "First"), await createPatient(t, "Second")];
    const [d1, d2] = [await linkDevice(t, p1, { platform: "manual", name: "Cuff 1" }), await linkDevice(t, p2, { platform: "manual", name: "Cuff 2" })];
    const at = minutesAgo(20);
    // rec-1: p1's reading, then taken over by p2's with the same record id (what the old ingest did: a PUT at the version it met).
    const moved = await json<Obs>(await t.fetch(`/fhir/r4/${t.orgId}/Observation`, { method: "POST", json: oldReading(p1, d1, "rec-1", 61, at) }));
    await json(await t.fetch(`/fhir/r4/${t.orgId}/Observation/${moved.id}`, { method: "PUT", headers: { "if-match": 'W/"1"' }, json: { ...oldReading(p2, d2, "rec-1", 99, at), id: moved.id } }));
    // rec-2: p1's reading nobody touched.
    const kept = await json<Obs>(await t.fetch(`/fhir/r4/${t.orgId}/Observation`, { method: "POST", json: oldReading(p1, d1, "rec-2", 64, minutesAgo(30)) }));

    await migrate(t.orgId);

    const report = await json<Moves>(await t.fetch("/api/v1/devices/reading-moves"));
    expect(report).toMatchObject({ total_count: 1, unrestored_count: 1 });
    expect(report.moves[0]).toMatchObject({ observation_id: moved.id, version_id: 2, from_patient_id: p1, from_device_id: d1, to_patient_id: p2, to_device_id: d2, restored_observation_id: null });

    // Identifiers name their device now: in the resource, the current version's history row and the index.
    expect((await find(t, `manual|rec-1|heart_rate`)).entry ?? []).toEqual([]);
    expect((await find(t, `manual|${d2}|rec-1|heart_rate`)).entry?.map((e) => e.resource.id)).toEqual([moved.id]);
    expect((await find(t, `manual|${d1}|rec-2|heart_rate`)).entry?.map((e) => e.resource.id)).toEqual([kept.id]);
    const vread = await json<Obs>(await t.fetch(`/fhir/r4/${t.orgId}/Observation/${kept.id}/_history/1`));
    expect(vread.identifier[0]!.value).toBe(`manual|${d1}|rec-2|heart_rate`);
    // A redelivery of an untouched reading meets its Observation, as before the migration.
    const again = await postReadings(t, [reading(p1, d1, { platform: "manual", source_record_id: "rec-2", value: 64, time: { at: (kept as unknown as { effectiveDateTime: string }).effectiveDateTime } })]);
    expect(again.results[0]).toMatchObject({ status: "duplicate", observation_id: kept.id });

    // The operator's report over every shard names the organization (and no other the test made).
    const operator = async () =>
      (await json<{ organizations: { org_id: string; moves: number; unrestored: number }[] }>(await call("/admin/device-reading-moves", { headers: { authorization: "Bearer test-operator-token" } }))).organizations.filter((o) => [t.orgId, other.orgId].includes(o.org_id));
    expect(await operator()).toEqual([{ org_id: t.orgId, shard: t.shard, moves: 1, unrestored: 1 }]);
    expect((await call("/admin/device-reading-moves", { headers: { authorization: `Bearer ${t.key}` } })).status).toBe(401);

    // Another organization: nothing to see, nothing to restore.
    expect(await json<Moves>(await other.fetch("/api/v1/devices/reading-moves"))).toMatchObject({ moves: [], total_count: 0, unrestored_count: 0 });
    expect(await json(await other.fetch("/api/v1/devices/reading-moves/restore", { method: "POST" }))).toEqual({ restored: 0, skipped: 0 });

    expect(await json(await t.fetch("/api/v1/devices/reading-moves/restore", { method: "POST" }))).toEqual({ restored: 1, skipped: 0 });
    const restored = (await json<Moves>(await t.fetch("/api/v1/devices/reading-moves"))).moves[0]!.restored_observation_id as string;
    const back = await json<Obs>(await t.fetch(`/fhir/r4/${t.orgId}/Observation/${restored}`));
    expect([back.subject.reference, back.device.reference, back.valueQuantity?.value, back.identifier[0]!.value]).toEqual([`Patient/${p1}`, `Device/${d1}`, 61, `manual|${d1}|rec-1|heart_rate`]);
    expect(await heartRates(t, p1)).toEqual([61, 64]);
    expect(await operator()).toEqual([{ org_id: t.orgId, shard: t.shard, moves: 1, unrestored: 0 }]);
    // The moved Observation stays the second patient's reading.
    const theirs = await json<Obs>(await t.fetch(`/fhir/r4/${t.orgId}/Observation/${moved.id}`));
    expect([theirs.subject.reference, theirs.valueQuantity?.value]).toEqual([`Patient/${p2}`, 99]);

    // Once: a second restore and the first patient's reading redelivered change nothing.
    expect(await json(await t.fetch("/api/v1/devices/reading-moves/restore", { method: "POST" }))).toEqual({ restored: 0, skipped: 0 });
    const redelivered = await postReadings(t, [reading(p1, d1, { platform: "manual", source_record_id: "rec-1", value: 61, time: { at } })]);
    expect(redelivered.results[0]).toMatchObject({ status: "duplicate", observation_id: restored });
    // The migration run again finds nothing new and changes no identifier twice.
    await migrate(t.orgId);
    expect((await json<Moves>(await t.fetch("/api/v1/devices/reading-moves"))).total_count).toBe(1);
    expect((await find(t, `manual|${d1}|rec-2|heart_rate`)).entry?.map((e) => e.resource.id)).toEqual([kept.id]);
  });
});
