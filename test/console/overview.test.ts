// GET /api/v1/overview: the last 24 hours of an organization, hour by hour, from the features'
// own counts: messages in, executions by status, alerts, exports, device readings.
import { describe, expect, it } from "vitest";
import { alerts } from "../../src/features/alerts/tables";
import { deviceRollups } from "../../src/features/devices/tables";
import { bulkExports } from "../../src/features/export/tables";
import { createPipeline, definition, edge, run, trigger } from "../support/pipelines";
import { authedFetch, createKey, createTenant, type Tenant } from "../support/tenants";

const ADT_A01 = [
  "MSH|^~\\&|ADTSYS|GENHOSP|CDIS|CDIS|20260315083000+0100||ADT^A01^ADT_A01|MSG00001|P|2.5.1",
  "PID|1||4711^^^GENHOSP^MR||Musterfrau^Erika||19640812|F",
].join("\r");

interface Series {
  id: string;
  total: number;
  counts: number[];
  split: string;
  parts: { name: string; total: number; counts: number[] }[];
}
interface Overview {
  since: string;
  hours: string[];
  series: Series[];
}

const HOUR = 3_600_000;
const hourAgo = (n: number) => new Date(Date.now() - n * HOUR).toISOString();

async function overview(t: Tenant): Promise<Overview> {
  const res = await t.fetch("/api/v1/overview");
  expect(res.status).toBe(200);
  return (await res.json()) as Overview;
}
const seriesOf = (o: Overview, id: string) => o.series.find((s) => s.id === id)!;

/** Rows the features write in their own flows (an alert rule firing, an export kick-off, a device sync), now and 2 and 30 hours ago. */
async function seed(t: Tenant) {
  const alert = (id: string, severity: "high" | "low", at: string) => ({
    orgId: t.orgId, id, ruleId: "r1", patientId: "p1", kind: "high_value" as const, metric: "heart_rate", deviceId: null, severity, recipients: "care_team" as const,
    pipelineId: null, state: "active" as const, message: "high", value: 130, limit: 120, observationIds: [], resources: {}, pipelineRuns: [], startedAt: at, createdAt: at, updatedAt: at,
  });
  await t.ctx.db.insert(alerts).values([alert("a1", "high", hourAgo(0)), alert("a2", "low", hourAgo(2)), alert("a3", "high", hourAgo(30))]);
  const exp = (id: string, level: string, at: string) => ({ orgId: t.orgId, id, level, groupId: null, types: "[]", since: null, requestedByKeyId: t.keyId, requestedByName: "k", createdAt: at });
  await t.ctx.db.insert(bulkExports).values([exp("e1", "system", hourAgo(2)), exp("e2", "system", hourAgo(30))]);
  const bucket = (n: number) => Math.floor((Date.now() - n * HOUR) / HOUR) * HOUR;
  const rollup = (metric: string, b: number, deviceId: string, n: number) => ({ orgId: t.orgId, patientId: "p1", metric, bucket: b, deviceId, n, total: n * 70, min: 60, max: 80 });
  await t.ctx.db.insert(deviceRollups).values([rollup("heart_rate", bucket(0), "d1", 5), rollup("heart_rate", bucket(0), "d2", 2), rollup("steps", bucket(1), "d1", 3), rollup("steps", bucket(30), "d1", 9)]);
}

describe("the overview", () => {
  it("counts the last 24 hours of each series, hour by hour, split by status, severity, level and metric", async () => {
    const t = await createTenant();
    const empty = await overview(t);
    expect(empty.hours).toHaveLength(24);
    expect(empty.since).toBe(empty.hours[0]);
    expect(empty.series.map((s) => s.id)).toEqual(["messages", "executions", "alerts", "exports", "readings"]);
    for (const s of empty.series) expect(s).toMatchObject({ total: 0, counts: Array(24).fill(0), parts: [] });

    const ok = await createPipeline(t, definition([trigger(), { id: "a", type: "data.transform", config: { expression: "1" } }], [edge("start", "a", "event")]));
    const bad = await createPipeline(t, definition([trigger(), { id: "a", type: "data.transform", config: { expression: '$error("no")' } }], [edge("start", "a", "event")]));
    for (const id of [ok, ok, bad]) await run(t, id);
    const sent = await t.fetch("/api/v1/hl7/messages", { method: "POST", json: { messages: [{ id: "m1", raw: ADT_A01 }, { id: "m2", raw: "not HL7" }] } });
    expect(sent.status).toBe(200);
    await seed(t);

    const o = await overview(t);
    const last = 23;
    expect(seriesOf(o, "executions")).toMatchObject({ total: 3, split: "status", parts: [{ name: "completed", total: 2 }, { name: "failed", total: 1 }] });
    expect(seriesOf(o, "executions").counts[last]).toBe(3);
    expect(seriesOf(o, "messages")).toMatchObject({ total: 2, parts: [{ name: "received", total: 1 }, { name: "rejected", total: 1 }] });
    const alertSeries = seriesOf(o, "alerts");
    expect(alertSeries).toMatchObject({ total: 2, split: "severity", parts: [{ name: "high", total: 1 }, { name: "low", total: 1 }] });
    expect([alertSeries.counts[last], alertSeries.counts[last - 2]]).toEqual([1, 1]);
    expect(seriesOf(o, "exports")).toMatchObject({ total: 1, split: "level", parts: [{ name: "system", total: 1 }] });
    expect(seriesOf(o, "exports").counts[last - 2]).toBe(1);
    const readings = seriesOf(o, "readings");
    expect(readings).toMatchObject({ total: 10, split: "metric", parts: [{ name: "heart_rate", total: 7 }, { name: "steps", total: 3 }] });
    expect([readings.counts[last], readings.counts[last - 1]]).toEqual([7, 3]);
    for (const s of o.series) expect(s.counts.reduce((a, b) => a + b, 0)).toBe(s.total);
  });

  it("shows an organization none of another's figures, and needs org:read", async () => {
    const a = await createTenant();
    const b = await createTenant({ shard: a.shard });
    await seed(a);
    await run(a, await createPipeline(a, definition([trigger(), { id: "a", type: "data.transform", config: { expression: "1" } }], [edge("start", "a", "event")])));
    expect(seriesOf(await overview(a), "alerts").total).toBe(2);
    for (const s of (await overview(b)).series) expect(s).toMatchObject({ total: 0, parts: [] });

    const viewer = authedFetch(a.orgId, (await createKey(a.orgId, "auditor")).key);
    expect((await viewer("/api/v1/overview")).status).toBe(200);
    const wrongOrg = await a.fetch("/api/v1/overview", { headers: { "x-organization-id": b.orgId } });
    expect(wrongOrg.status).toBe(403);
    expect(await wrongOrg.json()).toMatchObject({ error: { status: 403 } });
  });
});
