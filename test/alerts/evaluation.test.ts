// evaluateReadings: one alert per excursion with its FHIR resources, re-arm, late data in time
// order, sentinels ignored, rapid change and scores, recipients, and the alerts API.
import { describe, expect, it } from "vitest";
import type { Bundle } from "../../src/features/fhir/port";
import { createKey, authedFetch, createTenant, type Tenant } from "../support/tenants";
import { adminOf, evaluate, json, patientWithDevice, readResource, series, stored } from "./support";

interface AlertBody {
  id: string;
  kind: string;
  state: string;
  value: number;
  limit: number;
  message: string;
  observation_ids: string[];
  started_at: string;
  episode_ended_at: string | null;
  resources: { detected_issue?: string; communications?: string[]; flag?: string };
}

const T0 = new Date("2026-03-02T08:00:00Z");

async function rule(t: Tenant, body: Record<string, unknown>): Promise<string> {
  const res = await t.fetch("/api/v1/alert-rules", { method: "POST", json: body });
  if (res.status !== 201) throw new Error(`${res.status} ${await res.text()}`);
  return ((await res.json()) as { id: string }).id;
}

const alertsOf = (t: Tenant, query = "") => json<{ alerts: AlertBody[]; total_count: number }>(t.fetch(`/api/v1/alerts?${query}`));
const read = (t: Tenant, ref: string) => {
  const [type, id] = ref.split("/") as [string, string];
  return readResource(t, type, id);
};

describe("value alerts", () => {
  it("a high excursion makes one alert with a DetectedIssue implicating the Observation and a Communication; it re-arms after returning to normal", async () => {
    const t = await createTenant();
    const who = await patientWithDevice(t);
    const ruleId = await rule(t, { patient_id: who.patientId, metric: "heart_rate", kind: "high_value", threshold: 120, hysteresis: 5, recipients: "patient", severity: "high" });
    const first = await series(t, who, "heart_rate", [100, 125, 140, 131, 118], T0);
    const result = await evaluate(t, first);
    expect(result.opened).toHaveLength(1);
    // Still high, then within the band: the same episode, no new alert.
    expect((await alertsOf(t)).total_count).toBe(1);
    const [alert] = (await alertsOf(t)).alerts as [AlertBody];
    expect(alert).toMatchObject({ kind: "high_value", state: "active", value: 125, limit: 120, observation_ids: [first[1]?.observationId], episode_ended_at: null });
    expect(alert.message).toBe("heart_rate 125 /min is above the limit 120 /min");

    const issue = await read(t, alert.resources.detected_issue as string);
    expect(issue).toMatchObject({ status: "final", severity: "high", patient: { reference: `Patient/${who.patientId}` }, code: { coding: [{ code: "threshold-high" }] } });
    expect(issue.implicated).toContainEqual({ reference: `Observation/${first[1]?.observationId}` });
    const [comm] = alert.resources.communications as [string];
    expect(await read(t, comm)).toMatchObject({ status: "completed", recipient: [{ reference: `Patient/${who.patientId}` }], about: [{ reference: `DetectedIssue/${alert.id}` }], priority: "urgent" });

    // Back below 115 re-arms; the next excursion is a second alert.
    const later = await series(t, who, "heart_rate", [110, 150], new Date(T0.getTime() + 10 * 60_000));
    await evaluate(t, later);
    const all = await alertsOf(t, `rule_id=${ruleId}`);
    expect(all.total_count).toBe(2);
    const ended = all.alerts.find((a) => a.id === alert.id) as AlertBody;
    expect(ended.episode_ended_at).toBe(new Date(T0.getTime() + 10 * 60_000).toISOString());
    // Evaluating the same readings again changes nothing (redelivery).
    expect((await evaluate(t, [...first, ...later])).opened).toHaveLength(0);
    expect((await alertsOf(t)).total_count).toBe(2);
  });

  it("evaluates a week delivered at once (shuffled) in time order, and never evaluates sentinel values", async () => {
    const t = await createTenant();
    const who = await patientWithDevice(t);
    await rule(t, { patient_id: who.patientId, metric: "spo2", kind: "low_value", threshold: 90, hysteresis: 1 });
    // Day by day: normal, low, low, normal, low (a sentinel in between), normal, normal.
    const week = await series(t, who, "spo2", [96, 88, 87, 95, 85, undefined, 97], T0, 24 * 60);
    const shuffled = [week[6], week[2], week[0], week[4], week[1], week[5], week[3]].filter((r) => r !== undefined);
    await evaluate(t, shuffled);
    const { alerts } = await alertsOf(t);
    expect(alerts.map((a) => a.started_at).sort()).toEqual([1, 4].map((d) => new Date(T0.getTime() + d * 86_400_000).toISOString()));
    expect(alerts.every((a) => a.episode_ended_at !== null)).toBe(true);
    // A sentinel with a value field set is still never evaluated when marked absent.
    const sentinel = await stored(t, who, "spo2", 10, new Date(T0.getTime() + 8 * 86_400_000).toISOString(), { absentReason: "error" });
    expect((await evaluate(t, [sentinel])).opened).toHaveLength(0);
  });

  it("a rule on a metric follows each device's series: a ring's late batch is evaluated beside a live monitor's", async () => {
    const t = await createTenant();
    const who = await patientWithDevice(t);
    const monitor = (await t.ctx.fhir(adminOf(t)).create({ resourceType: "Device", patient: { reference: `Patient/${who.patientId}` } })).resource.id as string;
    await rule(t, { patient_id: who.patientId, metric: "heart_rate", kind: "high_value", threshold: 120 });
    // The monitor reports live, up to T0 + 2 days; the ring's readings of the day before arrive afterwards.
    await evaluate(t, await series(t, { ...who, deviceId: monitor }, "heart_rate", [80, 82], new Date(T0.getTime() + 2 * 86_400_000)));
    await evaluate(t, await series(t, who, "heart_rate", [90, 135, 140], new Date(T0.getTime() + 86_400_000), 60));
    const { alerts } = await alertsOf(t);
    expect(alerts).toHaveLength(1);
    expect(alerts[0]).toMatchObject({ value: 135, started_at: new Date(T0.getTime() + 86_400_000 + 3_600_000).toISOString() });
    // The monitor's own excursion is its own episode.
    await evaluate(t, await series(t, { ...who, deviceId: monitor }, "heart_rate", [150], new Date(T0.getTime() + 3 * 86_400_000)));
    expect((await alertsOf(t)).total_count).toBe(2);
  });

  it("a late reading (older than the device's last delivered one) is evaluated: its alert names its time, and the live episodes stay as the in-order readings made them", async () => {
    const t = await createTenant();
    const who = await patientWithDevice(t);
    await rule(t, { patient_id: who.patientId, metric: "heart_rate", kind: "high_value", threshold: 120 });
    const min = (m: number) => new Date(T0.getTime() + m * 60_000).toISOString();
    await evaluate(t, await series(t, who, "heart_rate", [80, 82, 84], T0));
    // A heart rate of 160 measured at T0+30 s arrives after the readings up to T0+2 min.
    const late = await stored(t, who, "heart_rate", 160, min(0.5));
    const raised = await evaluate(t, [late]);
    expect(raised.opened).toHaveLength(1);
    expect(raised.opened[0]).toMatchObject({ value: 160, startedAt: min(0.5), episodeEndedAt: min(0.5), observationIds: [late.observationId] });
    expect(raised.opened[0]?.message).toBe(`heart_rate 160 /min is above the limit 120 /min (a late reading: measured at ${min(0.5)}, delivered after later ones)`);
    const issue = await read(t, (await alertsOf(t)).alerts[0]?.resources.detected_issue as string);
    expect(issue.implicated?.map((r) => r.reference)).toContain(`Observation/${late.observationId}`);
    // Delivered again (or by a racing evaluator): it belongs to its own episode now.
    expect((await evaluate(t, [late])).opened).toHaveLength(0);

    // Live: an excursion opens alert A; late readings inside it (breaching, or back in range) neither open another nor end it.
    const [a] = (await evaluate(t, await series(t, who, "heart_rate", [130, 131], new Date(T0.getTime() + 3 * 60_000)))).opened;
    expect(a).toMatchObject({ startedAt: min(3), episodeEndedAt: null });
    expect((await evaluate(t, [await stored(t, who, "heart_rate", 145, min(3.5)), await stored(t, who, "heart_rate", 70, min(3.7))])).opened).toHaveLength(0);
    expect((await alertsOf(t)).alerts.find((x) => x.id === a?.id)?.episode_ended_at).toBeNull();
    // The in-order readings still end A and re-arm the rule.
    expect((await evaluate(t, await series(t, who, "heart_rate", [90], new Date(T0.getTime() + 5 * 60_000)))).ended).toEqual([a?.id]);
    // Two late readings in a row of an excursion nobody saw: one alert, ended by the late reading back in range.
    const night = [await stored(t, who, "heart_rate", 150, min(-60)), await stored(t, who, "heart_rate", 152, min(-59)), await stored(t, who, "heart_rate", 100, min(-58))];
    const [b, ...more] = (await evaluate(t, night)).opened;
    expect(more).toEqual([]);
    expect(b).toMatchObject({ value: 150, startedAt: min(-60), episodeEndedAt: min(-58) });
    const { alerts } = await alertsOf(t);
    expect(alerts).toHaveLength(3);
    expect(alerts.every((x) => x.episode_ended_at !== null)).toBe(true);
  });

  it("a late reading within a rapid-change rule's span is compared with the readings of its span", async () => {
    const t = await createTenant();
    const who = await patientWithDevice(t);
    await rule(t, { patient_id: who.patientId, metric: "blood_glucose", kind: "rapid_change", amount: 50, span_minutes: 30, direction: "drop" });
    const readings = await series(t, who, "blood_glucose", [180, 176], T0, 20);
    await evaluate(t, readings);
    const at = new Date(T0.getTime() + 10 * 60_000).toISOString();
    const late = await stored(t, who, "blood_glucose", 120, at);
    const [alert] = (await evaluate(t, [late])).opened;
    expect(alert).toMatchObject({ value: 60, observationIds: [readings[0]?.observationId, late.observationId], startedAt: at, episodeEndedAt: at });
    expect(alert?.message).toContain("changed by 60 /min from 180 /min to 120 /min within 30 minutes");
    expect(alert?.message).toContain("a late reading");
  });

  it("rapid change, score below threshold and component metrics (blood pressure)", async () => {
    const t = await createTenant();
    const who = await patientWithDevice(t);
    await rule(t, { patient_id: who.patientId, metric: "blood_glucose", kind: "rapid_change", amount: 50, span_minutes: 30, direction: "drop" });
    await rule(t, { patient_id: who.patientId, metric: "readiness_score", kind: "score_below", threshold: 60 });
    await rule(t, { patient_id: who.patientId, metric: "systolic", kind: "high_value", threshold: 160 });
    const glucose = await series(t, who, "blood_glucose", [180, 170, 120, 118], T0, 10);
    const score = await series(t, who, "readiness_score", [72, 55], T0, 24 * 60);
    const bp = await stored(t, who, "blood_pressure", undefined, T0.toISOString(), {
      components: [
        { metric: "systolic", value: 172, unit: "mm[Hg]" },
        { metric: "diastolic", value: 95, unit: "mm[Hg]" },
      ],
    });
    await evaluate(t, [...glucose, ...score, bp]);
    const byKind = Object.fromEntries((await alertsOf(t)).alerts.map((a) => [a.kind, a]));
    expect(byKind.rapid_change).toMatchObject({ value: 60, observation_ids: [glucose[0]?.observationId, glucose[2]?.observationId] });
    expect(byKind.rapid_change?.message).toContain("changed by 60 /min from 180 /min to 120 /min within 30 minutes");
    expect(byKind.score_below).toMatchObject({ value: 55, limit: 60 });
    expect(byKind.high_value).toMatchObject({ value: 172, message: "systolic 172 mm[Hg] is above the limit 160 mm[Hg]" });
    const issue = await read(t, byKind.rapid_change?.resources.detected_issue as string);
    expect(issue.code?.coding[0]?.code).toBe("rapid-change");
  });
});

describe("concurrent evaluation", () => {
  it("two deliveries racing on one rule open one episode, not two", async () => {
    const t = await createTenant();
    const who = await patientWithDevice(t);
    await rule(t, { patient_id: who.patientId, metric: "heart_rate", kind: "high_value", threshold: 120 });
    const a = await series(t, who, "heart_rate", [130, 131], T0);
    const b = await series(t, who, "heart_rate", [132, 133], new Date(T0.getTime() + 5 * 60_000));
    await Promise.all([evaluate(t, a), evaluate(t, b), evaluate(t, [...a, ...b])]);
    expect((await alertsOf(t)).total_count).toBe(1);
    // The same late reading evaluated by three at once: one late alert.
    const late = await series(t, who, "heart_rate", [150], new Date(T0.getTime() - 60 * 60_000));
    await Promise.all([evaluate(t, late), evaluate(t, late), evaluate(t, late)]);
    expect((await alertsOf(t)).total_count).toBe(2);
  });
});

describe("recipients", () => {
  it("care team means the patient's active CareTeams; none → a not-done Communication saying so", async () => {
    const t = await createTenant();
    const who = await patientWithDevice(t);
    await rule(t, { patient_id: who.patientId, metric: "heart_rate", kind: "low_value", threshold: 40, recipients: "both" });
    await evaluate(t, [await stored(t, who, "heart_rate", 35, T0.toISOString())]);
    const [lonely] = (await alertsOf(t)).alerts as [AlertBody];
    const comms = await Promise.all((lonely.resources.communications ?? []).map((c) => read(t, c)));
    expect(comms.map((c) => c.status).sort()).toEqual(["completed", "not-done"]);
    expect(comms.find((c) => c.status === "not-done")?.statusReason?.text).toBe("The patient has no active CareTeam");

    const fhir = t.ctx.fhir(adminOf(t));
    const team = await fhir.create({ resourceType: "CareTeam", status: "active", subject: { reference: `Patient/${who.patientId}` }, name: "Cardiology" });
    await fhir.create({ resourceType: "CareTeam", status: "inactive", subject: { reference: `Patient/${who.patientId}` }, name: "Former" });
    await evaluate(t, [await stored(t, who, "heart_rate", 60, new Date(T0.getTime() + 60_000).toISOString()), await stored(t, who, "heart_rate", 30, new Date(T0.getTime() + 120_000).toISOString())]);
    const second = (await alertsOf(t)).alerts.find((a) => a.id !== lonely.id) as AlertBody;
    const toTeam = await read(t, (second.resources.communications ?? []).find((c) => c.endsWith("-care-team")) as string);
    expect(toTeam).toMatchObject({ status: "completed", recipient: [{ reference: `CareTeam/${team.resource.id}` }] });
    const search = (await fhir.search("Communication", `recipient=CareTeam/${team.resource.id}`)) as Bundle;
    expect(search.entry).toHaveLength(1);
  });
});

describe("alerts API", () => {
  it("acknowledge then resolve (the DetectedIssue records both); filters; roles; tenancy", async () => {
    const t = await createTenant();
    const other = await createTenant();
    const who = await patientWithDevice(t);
    await rule(t, { patient_id: who.patientId, metric: "heart_rate", kind: "high_value", threshold: 120 });
    await evaluate(t, [await stored(t, who, "heart_rate", 150, T0.toISOString())]);
    const [alert] = (await alertsOf(t)).alerts as [AlertBody];
    const service = authedFetch(t.orgId, (await createKey(t.orgId, "service")).key);
    const clinician = authedFetch(t.orgId, (await createKey(t.orgId, "clinician")).key);
    expect((await service(`/api/v1/alerts/${alert.id}`)).status).toBe(200);
    expect((await service(`/api/v1/alerts/${alert.id}/acknowledge`, { method: "POST" })).status).toBe(403);

    const acked = await clinician(`/api/v1/alerts/${alert.id}/acknowledge`, { method: "POST" });
    expect(acked.status).toBe(200);
    expect(((await acked.json()) as AlertBody).state).toBe("acknowledged");
    expect((await alertsOf(t, "state=active")).total_count).toBe(0);
    expect((await alertsOf(t, `state=acknowledged&patient_id=${who.patientId}&kind=high_value`)).total_count).toBe(1);
    expect((await alertsOf(t, "kind=low_value")).total_count).toBe(0);

    const resolved = await t.fetch(`/api/v1/alerts/${alert.id}/resolve`, { method: "POST", json: { note: "Called the patient; exercising" } });
    expect(resolved.status).toBe(200);
    expect(((await resolved.json()) as AlertBody).state).toBe("resolved");
    const issue = await read(t, `DetectedIssue/${alert.id}`);
    expect(issue.mitigation?.map((m) => m.action.text)).toEqual([expect.stringMatching(/^Acknowledged by clinician key/), expect.stringMatching(/Called the patient; exercising$/)]);
    expect((await t.fetch(`/api/v1/alerts/${alert.id}/resolve`, { method: "POST" })).status).toBe(409);
    expect((await t.fetch(`/api/v1/alerts/${alert.id}/acknowledge`, { method: "POST" })).status).toBe(409);
    expect((await t.fetch("/api/v1/alerts?state=open")).status).toBe(400);

    for (const [path, method] of [[`/api/v1/alerts/${alert.id}`, "GET"], [`/api/v1/alerts/${alert.id}/acknowledge`, "POST"], [`/api/v1/alerts/${alert.id}/resolve`, "POST"]] as const) {
      expect((await other.fetch(path, { method })).status).toBe(404);
    }
    expect((await alertsOf(other)).total_count).toBe(0);
    expect((await alertsOf(other, `patient_id=${who.patientId}`)).total_count).toBe(0);
    // Readings of another org's patient do not reach this org's rules.
    expect((await evaluate(other, [await stored(t, who, "heart_rate", 180, new Date(T0.getTime() + 3_600_000).toISOString())])).opened).toHaveLength(0);
  });
});
