// The device core's records per vendor (vendor-cases.ts), beyond the common path of
// vendors-device-core.test.ts: two users whose records share ids stay two patients, WHOOP deletes
// retract their own record only, readings the device core refuses are counted on the event and the
// sync log with the reason, two patients' records of the same instant stay two, and an Oura
// document updated through the day gives new versions. Only the vendors' clouds are mocks.
import { beforeAll, describe, expect, it } from "vitest";
import { env } from "cloudflare:workers";
import { contextForOrg } from "../../src/main/context";
import { processDeviceEventBatch } from "../../src/features/devices/platforms/webhooks/queue";
import type { DeviceEventMessage } from "../../src/features/devices/platforms/webhooks/receive";
import { createTenant, type Tenant } from "../support/tenants";
import { integrate, newPatientDevice, type Obs, observations, syncAndWait, vitalValues, withCode } from "./device-core";
import { ouraSignedHeaders } from "./mocks/oura";
import type { MockUser } from "./mocks/vendor-mock";
import { whoopSignedHeaders, whoopSleep } from "./mocks/whoop";
import { deliver, linkDevice, webhookEvents } from "./support";
import { rowOf, sortRows, useVendorClouds, vendorWorld } from "./vendor-cases";

const { at, NIGHT, WHOOP_SLEEP, OURA_SLEEP, whoop, polar, oura, whoopEvent, ouraEvent, around, byType, CASES } = vendorWorld();
const faults = useVendorClouds(CASES.map((c) => c.mock));

/** A vendor's body as it comes for another of its users: every mention of the user's id replaced. */
const forUser = (body: string, from: MockUser, to: MockUser) => body.split(from.id).join(to.id);

type Held = Obs & { meta: { versionId: string }; subject: { reference: string } };
/** What a patient's Observations are: id, version, subject, device, value (what another patient's records must never move). */
const held = async (t: Tenant, patientId: string) =>
  ((await observations(t, patientId)) as Held[]).map((o) => [o.id, o.meta.versionId, o.subject.reference, o.device?.reference, o.valueQuantity?.value]).sort();

describe.each(CASES)("$vendor: two users whose records share ids stay two patients", (c) => {
  // Two links, two users' deliveries and a backfill: a minute's wait on a loaded machine, not a failure.
  it("the second user's webhooks and backfill create its own Observations; the first patient's stay as they were", { timeout: 60_000 }, async () => {
    const t = await createTenant();
    await integrate(t, c.kind, c.credentials, c.settings);
    const second: MockUser = { id: `${c.user.id}9` };
    const [a, b] = [await newPatientDevice(t, c.kind, `${c.vendor} first`), await newPatientDevice(t, c.kind, `${c.vendor} second`)];
    expect((await linkDevice(t, c.kind, c.mock, c.user, a)).response.status).toBe(200);
    expect((await linkDevice(t, c.kind, c.mock, second, b)).response.status).toBe(200);
    for (const body of c.deliveries) expect(await deliver(t, c.kind, body, c.sign(body))).toMatchObject({ status: "processed", rejected: 0 });
    const first = await held(t, a.patientId);
    expect(first.length).toBe(c.expected.length);

    // The vendor's record ids are unique only within its user: the second user's are the same.
    for (const body of c.deliveries.map((d) => forUser(d, c.user, second))) expect(await deliver(t, c.kind, body, c.sign(body))).toMatchObject({ status: "processed", rejected: 0, updated: 0 });
    expect((await syncAndWait(t, b.deviceId, c.sync.body)).data_types.every((d) => d.readings_rejected === 0)).toBe(true);

    expect(await held(t, a.patientId)).toEqual(first);
    const theirs = await observations(t, b.patientId);
    expect(sortRows(theirs.filter((o) => o.status === "final").map(rowOf))).toEqual(expect.arrayContaining(sortRows([...c.expected])));
    expect(theirs.every((o) => o.device?.reference === `Device/${b.deviceId}`)).toBe(true);
  });
});

describe("WHOOP deletes", () => {
  let t: Tenant;
  let ids: { patientId: string; deviceId: string };
  /** Another WHOOP user of the org, whose records have the same ids. */
  let neighbour: { patientId: string; deviceId: string };
  const recordsOf = async (of: typeof ids, recordId: string) => (await observations(t, of.patientId)).filter((o) => o.identifier?.[0]?.value.startsWith(`recovery_strap|${of.deviceId}|${recordId}|`));
  const mine = (recordId: string) => recordsOf(ids, recordId);
  const send = (body: string) => deliver(t, "recovery_strap", body, whoopSignedHeaders("whoop-e2e-secret", body));

  beforeAll(async () => {
    t = await createTenant();
    await integrate(t, "recovery_strap", CASES[0]!.credentials, CASES[0]!.settings);
    ids = await newPatientDevice(t, "recovery_strap", "WHOOP wearer");
    neighbour = await newPatientDevice(t, "recovery_strap", "Another WHOOP wearer");
    expect((await linkDevice(t, "recovery_strap", whoop, { id: "20451" }, ids)).response.status).toBe(200);
    expect((await linkDevice(t, "recovery_strap", whoop, { id: "20452" }, neighbour)).response.status).toBe(200);
    for (const type of ["sleep.updated", "recovery.updated"]) {
      await send(whoopEvent(type, WHOOP_SLEEP));
      await send(forUser(whoopEvent(type, WHOOP_SLEEP), { id: "20451" }, { id: "20452" }));
    }
  });

  it("a v2 recovery.deleted (the sleep's UUID) retracts the recovery only: the sleep's Observations stay, the vitals lose the recovery's", async () => {
    expect((await mine(`recovery-${WHOOP_SLEEP}`)).map((o) => o.status)).toEqual(Array(5).fill("final"));
    expect((await vitalValues(t, ids.patientId, "hrv")).values).toEqual([48.2]);
    // Deleted at WHOOP: gone from its API too.
    whoop.docs.recovery.delete("184001");
    expect(await send(whoopEvent("recovery.deleted", WHOOP_SLEEP))).toMatchObject({ status: "processed", readings: 0, deleted: 1 });
    expect((await mine(`recovery-${WHOOP_SLEEP}`)).map((o) => o.status)).toEqual(Array(5).fill("entered-in-error"));
    expect((await mine(WHOOP_SLEEP)).map((o) => o.status)).toEqual(Array(4).fill("final"));
    expect((await vitalValues(t, ids.patientId, "hrv")).values).toEqual([]);
    expect((await vitalValues(t, ids.patientId, "sleep")).values).toEqual([456.9299]);
    // The other user's recovery under the same id is theirs: untouched.
    expect((await recordsOf(neighbour, `recovery-${WHOOP_SLEEP}`)).map((o) => o.status)).toEqual(Array(5).fill("final"));
    expect((await vitalValues(t, neighbour.patientId, "hrv")).values).toEqual([48.2]);
  });

  it("the sleep.deleted that comes with it retracts the sleep", async () => {
    whoop.docs.sleep.delete(WHOOP_SLEEP);
    expect(await send(whoopEvent("sleep.deleted", WHOOP_SLEEP))).toMatchObject({ status: "processed", deleted: 1 });
    expect((await mine(WHOOP_SLEEP)).map((o) => o.status)).toEqual(Array(4).fill("entered-in-error"));
    expect((await vitalValues(t, ids.patientId, "sleep")).values).toEqual([]);
  });

  it("a v1 recovery.deleted (an integer cycle id) cannot be traced to a recovery and retracts nothing", async () => {
    await syncAndWait(t, ids.deviceId, { data_types: ["sleep"], ...around });
    const before = (await observations(t, ids.patientId)).filter((o) => o.status === "final").length;
    expect(before).toBeGreaterThan(0);
    expect(await send(whoopEvent("recovery.deleted", "183999"))).toMatchObject({
      status: "no_readings",
      deleted: 0,
      error: expect.stringContaining('gave no readings: the delete names "183999", which is no recovery\'s sleep UUID'),
    });
    expect((await observations(t, ids.patientId)).filter((o) => o.status === "final").length).toBe(before);
  });
});

describe("WHOOP: a record announced before it is scored", () => {
  const SLEEP = "7a1c2e3f-4b5d-4e6f-8a9b-0c1d2e3f4a55";
  const pending = { cycle_id: 184002, sleep_id: SLEEP, user_id: 20451, created_at: at(11), updated_at: at(11), score_state: "PENDING_SCORE" };

  it("the absent readings of PENDING_SCORE do not swallow the scored values that follow; a delete retracts both", async () => {
    whoop.docs.sleep.set(SLEEP, { ...whoopSleep, id: SLEEP, cycle_id: 184002, user_id: 20451, start: at(3), end: at(10.9), created_at: at(11), updated_at: at(11) });
    whoop.docs.recovery.set("184002", pending);
    const t = await createTenant();
    await integrate(t, "recovery_strap", CASES[0]!.credentials, CASES[0]!.settings);
    const ids = await newPatientDevice(t, "recovery_strap", "WHOOP wearer");
    expect((await linkDevice(t, "recovery_strap", whoop, { id: "20451" }, ids)).response.status).toBe(200);
    const send = (body: string) => deliver(t, "recovery_strap", body, whoopSignedHeaders("whoop-e2e-secret", body));
    expect(await send(whoopEvent("recovery.updated", SLEEP))).toMatchObject({ status: "processed", readings: 5, rejected: 0 });
    const absent = await observations(t, ids.patientId);
    expect(absent.every((o) => o.valueQuantity === undefined && o.dataAbsentReason !== undefined)).toBe(true);
    expect((await vitalValues(t, ids.patientId, "hrv")).values).toEqual([]);
    // WHOOP scores it and says so again.
    whoop.docs.recovery.set("184002", { ...pending, updated_at: at(11.5), score_state: "SCORED", score: { user_calibrating: false, recovery_score: 38, resting_heart_rate: 58, hrv_rmssd_milli: 29.5, spo2_percentage: 95.1, skin_temp_celsius: 33.2 } });
    expect(await send(whoopEvent("recovery.updated", SLEEP))).toMatchObject({ status: "processed", readings: 5, rejected: 0 });
    const scored = (await observations(t, ids.patientId)).filter((o) => o.valueQuantity);
    expect(sortRows(scored.map(rowOf))).toEqual(sortRows([["recovery-score", 38, "{score}"], ["40443-4", 58, "/min"], ["hrv-rmssd", 29.5, "ms"], ["2708-6", 95.1, "%"], ["61008-9", 33.2, "Cel"]]));
    expect((await vitalValues(t, ids.patientId, "hrv")).values).toEqual([29.5]);
    whoop.docs.recovery.delete("184002");
    expect(await send(whoopEvent("recovery.deleted", SLEEP))).toMatchObject({ status: "processed", deleted: 1 });
    const after = await observations(t, ids.patientId);
    expect(after.length).toBe(10);
    expect(after.every((o) => o.status === "entered-in-error")).toBe(true);
  });
});

describe("readings the device core refuses are counted, with the reason", () => {
  let t: Tenant;
  let ids: { patientId: string; deviceId: string };
  // Oura answers a sleep period whose end is missing (a period still open): its interval readings cannot be stored.
  const open = { ...OURA_SLEEP, id: "e2e-sleep-open", bedtime_end: null, heart_rate: null, hrv: null };

  beforeAll(async () => {
    oura.docs.set("sleep", [...(oura.docs.get("sleep") ?? []), open]);
    t = await createTenant();
    await integrate(t, "smart_ring", CASES[4]!.credentials, CASES[4]!.settings);
    ids = await newPatientDevice(t, "smart_ring", "Oura wearer");
    expect((await linkDevice(t, "smart_ring", oura, { id: "oura-e2e-user" }, ids)).response.status).toBe(200);
  });

  it("on the webhook event: the readings stored, those refused and why; nothing claimed that was not stored", async () => {
    const body = ouraEvent("sleep", "e2e-sleep-open");
    const event = await deliver(t, "smart_ring", body, ouraSignedHeaders("oura-e2e-secret", body));
    expect(event).toMatchObject({ status: "processed", readings: 0, rejected: 5 });
    const { rejections } = event;
    expect(rejections.map((r) => r.metric).sort()).toEqual(["hrv", "respiratory_rate", "resting_heart_rate", "sleep", "sleep_efficiency"]);
    expect(rejections.every((r) => r.record === "e2e-sleep-open" && /^time\.end: must be an ISO 8601 date-time/.test(r.reason))).toBe(true);
    expect(await observations(t, ids.patientId)).toEqual([]);
  });

  it("in the sync log: readings_rejected with each record's reason", async () => {
    const log = await syncAndWait(t, ids.deviceId, { data_types: ["sleep"], ...around });
    expect(log.state, JSON.stringify(log)).toBe("completed");
    const sleep = byType(log, "sleep")!;
    expect(sleep).toMatchObject({ readings_rejected: 5, observations_created: 11 });
    expect(sleep.errors.filter((e) => e.record === "e2e-sleep-open").length).toBe(5);
    expect(sleep.errors[0]?.reason).toMatch(/^time\.end: must be an ISO 8601 date-time/);
  });
});

describe("two patients' records of the same instant stay two", () => {
  it("Oura heart rate samples and Polar nights have no id of their own: each is the device's", async () => {
    const t = await createTenant();
    await integrate(t, "smart_ring", CASES[4]!.credentials, CASES[4]!.settings);
    await integrate(t, "training_platform", CASES[2]!.credentials, CASES[2]!.settings);
    for (const [kind, mock, users, sync, code] of [
      ["smart_ring", oura, [{ id: "oura-e2e-user" }, { id: "oura-e2e-user-2" }], { data_types: ["heartrate"], ...around }, "8867-4"],
      ["training_platform", polar, [{ id: "58213" }, { id: "58214" }], { data_types: ["sleep"], ...around }, "93832-4"],
    ] as const) {
      const patients: string[] = [];
      for (const user of users) {
        const ids = await newPatientDevice(t, kind, `${kind} ${user.id}`);
        expect((await linkDevice(t, kind, mock, user, ids)).response.status).toBe(200);
        // Both users have a record of the same instant (these mocks give every user the same data).
        expect((await syncAndWait(t, ids.deviceId, sync)).state).toBe("completed");
        patients.push(ids.patientId);
      }
      for (const patient of patients) expect(withCode(await observations(t, patient), code).length, `${kind} ${patient}`).toBeGreaterThan(0);
    }
  });
});

describe("Oura: a daily_activity document updated through the day", () => {
  // Oura re-sends the day's document under the same id as steps and calories grow (event_type "update").
  const ACT = { id: "e2e-act-growing", day: NIGHT, score: 70, steps: 3100, active_calories: 120, timestamp: `${NIGHT}T04:00:00+00:00` };
  const put = (doc: typeof ACT) => oura.docs.set("daily_activity", [...(oura.docs.get("daily_activity") ?? []).filter((d) => (d as { id: string }).id !== ACT.id), doc]);
  let t: Tenant;
  let ids: { patientId: string; deviceId: string };
  const send = (eventType: string) => {
    const body = ouraEvent("daily_activity", ACT.id, eventType);
    return deliver(t, "smart_ring", body, ouraSignedHeaders("oura-e2e-secret", body));
  };
  const steps = async () =>
    withCode(await observations(t, ids.patientId), "55423-8").filter((o) => (o as { identifier?: { value: string }[] }).identifier?.[0]?.value.includes(`|${ACT.id}|`));

  beforeAll(async () => {
    put(ACT);
    t = await createTenant();
    await integrate(t, "smart_ring", CASES[4]!.credentials, CASES[4]!.settings);
    ids = await newPatientDevice(t, "smart_ring", "Oura wearer");
    expect((await linkDevice(t, "smart_ring", oura, { id: "oura-e2e-user" }, ids)).response.status).toBe(200);
  });

  it("the update gives the Observations new versions and the vitals the new values; the event counts them", async () => {
    expect(await send("create")).toMatchObject({ status: "processed", readings: 3, updated: 0, rejected: 0 });
    expect((await vitalValues(t, ids.patientId, "steps")).values).toEqual([3100]);
    put({ ...ACT, score: 78, steps: 8450, active_calories: 355 });
    expect(await send("update")).toMatchObject({ status: "processed", readings: 3, updated: 3, rejected: 0 });
    const [obs] = await steps();
    expect(obs).toMatchObject({ status: "final", valueQuantity: { value: 8450 } });
    const versions = ((await (await t.fetch(`/fhir/r4/${t.orgId}/Observation/${(obs as { id: string }).id}/_history`)).json()) as { entry: { resource: { valueQuantity: { value: number } } }[] }).entry;
    expect(versions.map((e) => e.resource.valueQuantity.value).sort((a, b) => a - b)).toEqual([3100, 8450]);
    expect((await vitalValues(t, ids.patientId, "steps")).values).toEqual([8450]);
    // The same document announced again, and a manual sync: nothing changes (the sync creates the case's own e2e-act-1).
    expect(await send("update")).toMatchObject({ status: "processed", readings: 3, updated: 0 });
    expect((await syncAndWait(t, ids.deviceId, { data_types: ["daily_activity"], ...around })).data_types.find((d) => d.data_type === "daily_activity")).toMatchObject({
      observations_created: 3,
      observations_updated: 0,
      duplicates_skipped: 3,
    });
  });

  it("a delivery that fails after updating and succeeds on its retry counts the updates of both attempts", async () => {
    put({ ...ACT, score: 74, steps: 6000, active_calories: 250 });
    const body = ouraEvent("daily_activity", ACT.id, "update");
    const eventId = crypto.randomUUID();
    const outcome: string[] = [];
    const attempt = (attempts: number) =>
      processDeviceEventBatch(
        {
          queue: "cdis-device-events",
          messages: [{ id: eventId, timestamp: new Date(), attempts, body: { orgId: t.orgId, eventId, delivery: { kind: "smart_ring", body, receivedAt: new Date().toISOString() } }, ack: () => outcome.push(`ack ${attempts}`), retry: () => outcome.push(`retry ${attempts}`) }],
        } as unknown as MessageBatch<DeviceEventMessage>,
        env,
        contextForOrg,
      );
    faults.failAfterStoring = 1;
    await attempt(1);
    const row = async () => (await webhookEvents(t)).find((e) => e.id === eventId);
    // The first attempt updated the three Observations, then failed: the row keeps that count.
    expect(await row()).toMatchObject({ status: "failed", attempts: 1, updated: 3 });
    await attempt(2);
    expect(outcome).toEqual(["retry 1", "ack 2"]);
    // The retry meets them as current (duplicates): the count stays the delivery's, not the last attempt's.
    expect(await row()).toMatchObject({ status: "processed", readings: 3, updated: 3, rejected: 0 });
    const [obs] = await steps();
    expect(obs).toMatchObject({ valueQuantity: { value: 6000 }, meta: { versionId: "3" } });
    // A queue redelivery of the processed message changes nothing.
    await attempt(3);
    expect(await row()).toMatchObject({ status: "processed", updated: 3 });
  });

  it("a deleted document stays deleted when a changed copy arrives late", async () => {
    expect(await send("delete")).toMatchObject({ status: "processed", deleted: 1 });
    put({ ...ACT, score: 80, steps: 9999, active_calories: 400 });
    expect(await send("update")).toMatchObject({ status: "processed", updated: 0 });
    expect((await steps()).map((o) => o.status)).toEqual(["entered-in-error"]);
    expect((await vitalValues(t, ids.patientId, "steps")).values).toEqual([]);
    oura.docs.set("daily_activity", (oura.docs.get("daily_activity") ?? []).filter((d) => (d as { id: string }).id !== ACT.id));
  });
});
