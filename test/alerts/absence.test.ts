// Absence of data through the minute cron: silence measured from the latest reading, judged only
// as far as the device's last sync reports (late data is not called missing), a Flag while the
// silence lasts, ended by the next reading.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { LastSyncOf } from "../../src/features/alerts/absence-check";
import { runScheduledWork } from "../../src/main/scheduled";
import { createTenant, type Tenant } from "../support/tenants";
import { evaluate, json, patientWithDevice, readResource, series, stored } from "./support";

const MIN = 60_000;

interface AlertBody {
  id: string;
  kind: string;
  state: string;
  message: string;
  value: number;
  started_at: string;
  episode_ended_at: string | null;
  observation_ids: string[];
  resources: { detected_issue?: string; flag?: string; communications?: string[] };
}

const alertsOf = async (t: Tenant) => (await json<{ alerts: AlertBody[] }>(t.fetch("/api/v1/alerts?kind=data_absence"))).alerts;

async function absenceRule(t: Tenant, body: Record<string, unknown>): Promise<number> {
  const res = await t.fetch("/api/v1/alert-rules", { method: "POST", json: { kind: "data_absence", span_minutes: 60, ...body } });
  expect(res.status).toBe(201);
  return Date.parse(((await res.json()) as { created_at: string }).created_at);
}

describe("absence of data", () => {
  it("late readings that fill the span raise nothing; real silence raises a Flag that the next reading ends", async () => {
    const t = await createTenant();
    const who = await patientWithDevice(t);
    const c = await absenceRule(t, { patient_id: who.patientId, metric: "heart_rate", recipients: "patient" });
    const at = (minutes: number) => new Date(c + minutes * MIN);
    // Ten readings, C+10 … C+100, arrive in one late batch before the cron looks.
    await evaluate(t, await series(t, who, "heart_rate", [70, 71, 72, 73, 74, 75, 76, 77, 78, 79], at(10), 10));
    await runScheduledWork(env, at(120));
    expect(await alertsOf(t)).toEqual([]);

    await runScheduledWork(env, at(161));
    const [alert] = (await alertsOf(t)) as [AlertBody];
    expect(alert).toMatchObject({ state: "active", started_at: at(100).toISOString(), value: 61, episode_ended_at: null });
    expect(alert.message).toMatch(/^No heart_rate readings for 61 minutes, since /);
    const flag = await readResource(t, "Flag", alert.id);
    expect(flag).toMatchObject({ status: "active", subject: { reference: `Patient/${who.patientId}` }, code: { coding: [{ code: "no-data" }] }, period: { start: at(100).toISOString() } });
    expect(await readResource(t, "DetectedIssue", alert.id)).toMatchObject({ code: { coding: [{ code: "no-data" }] }, implicated: [{ reference: `Observation/${alert.observation_ids[0]}` }] });
    // The silence goes on: no second alert on later ticks.
    await runScheduledWork(env, at(200));
    expect(await alertsOf(t)).toHaveLength(1);

    await evaluate(t, [await stored(t, who, "heart_rate", 72, at(210).toISOString())]);
    const [ended] = (await alertsOf(t)) as [AlertBody];
    expect(ended.episode_ended_at).toBe(at(210).toISOString());
    expect((await readResource(t, "Flag", alert.id)).status).toBe("inactive");
    // Watching again from the new reading: silent again one span later.
    await runScheduledWork(env, at(271));
    expect(await alertsOf(t)).toHaveLength(2);
  });

  it("with the device's last sync known, a gap the platform has not reported on yet is not called missing", async () => {
    const t = await createTenant();
    const who = await patientWithDevice(t);
    const c = await absenceRule(t, { patient_id: who.patientId, device_id: who.deviceId });
    const at = (minutes: number) => new Date(c + minutes * MIN);
    let syncedAt = at(40);
    const lastSyncOf: LastSyncOf = async (ctx, deviceId) => (ctx.orgId === t.orgId && deviceId === who.deviceId ? syncedAt.toISOString() : undefined);
    await evaluate(t, [await stored(t, who, "steps", 120, at(1).toISOString())]);

    // 89 minutes since the last reading, but the platform last reported 50 minutes ago: the rest may still come.
    await runScheduledWork(env, at(90), lastSyncOf);
    expect(await alertsOf(t)).toEqual([]);
    // It does: a sync brings readings for the gap (another metric of the same device counts).
    syncedAt = at(125);
    await evaluate(t, await series(t, who, "heart_rate", [60, 61, 62, 63], at(50), 10));
    await runScheduledWork(env, at(130), lastSyncOf);
    expect(await alertsOf(t)).toEqual([]);

    // A sync at C+200 brings nothing after C+80: the gap is real.
    syncedAt = at(200);
    await runScheduledWork(env, at(205), lastSyncOf);
    const [alert] = (await alertsOf(t)) as [AlertBody];
    expect(alert).toMatchObject({ started_at: at(80).toISOString() });
    expect(alert.message).toContain(`from device ${who.deviceId}`);
  });

  it("without any reading or sync, the rule's own start is when silence began; the device not syncing is named", async () => {
    const t = await createTenant();
    const who = await patientWithDevice(t);
    const c = await absenceRule(t, { patient_id: who.patientId, device_id: who.deviceId, span_minutes: 30 });
    const lastSyncOf: LastSyncOf = async () => new Date(c - 5 * MIN).toISOString();
    await runScheduledWork(env, new Date(c + 31 * MIN), lastSyncOf);
    const [alert] = (await alertsOf(t)) as [AlertBody];
    expect(alert.started_at).toBe(new Date(c).toISOString());
    expect(alert.message).toContain("the device has not synced either");
    expect(alert.observation_ids).toEqual([]);
  });
});
