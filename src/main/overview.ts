// GET /api/v1/overview: the console's landing figures, the last 24 UTC hours of the organization's
// messages in, pipeline executions, alerts, Bulk Data exports and device readings, hour by hour.
// The root composes it from the count each feature exposes through its index.ts (each one grouped
// query on the org's shard); no feature knows the overview.
import { createRoute, z } from "@hono/zod-openapi";
import { alertsByHour } from "../features/alerts";
import { readingsByHour } from "../features/devices";
import { exportsByHour } from "../features/export";
// The inbound index is the plug-ins' type-only surface, loaded by the bridge in Node; the root
// reaches the feature's use cases directly, as app.ts does its routes.
import { messagesByHour } from "../features/inbound/use-cases/messages";
import { executionsByHour } from "../features/pipelines";
import { requirePermission } from "../features/tenancy";
import { type HourCount, hourStarts } from "../platform/db/hourly";
import type { HttpEnv } from "../platform/http/http-env";
import { createRouter } from "../platform/http/router";
import { commonErrors, json, security } from "../platform/http/schemas";
import type { OrgData } from "../platform/org-data";

export const OVERVIEW_HOURS = 24;

const SERIES = {
  messages: { label: "Messages in", split: "status", count: messagesByHour },
  executions: { label: "Pipeline executions", split: "status", count: executionsByHour },
  alerts: { label: "Alerts raised", split: "severity", count: alertsByHour },
  exports: { label: "Bulk Data exports", split: "level", count: exportsByHour },
  readings: { label: "Device readings", split: "metric", count: readingsByHour },
} as const satisfies Record<string, { label: string; split: string; count: (data: OrgData, from: string) => Promise<HourCount[]> }>;

type SeriesId = keyof typeof SERIES;
const SERIES_IDS = Object.keys(SERIES) as SeriesId[];

const Counts = z.array(z.number().int()).openapi({ description: `One count per hour of \`hours\`, oldest first (${OVERVIEW_HOURS} entries)` });

const Series = z
  .object({
    id: z.enum(SERIES_IDS as [SeriesId, ...SeriesId[]]),
    label: z.string().openapi({ example: "Messages in" }),
    total: z.number().int(),
    counts: Counts,
    split: z.string().openapi({ description: "What `parts` splits the series by (status, severity, level, metric)", example: "status" }),
    parts: z.array(z.object({ name: z.string().openapi({ example: "processed" }), total: z.number().int(), counts: Counts })).openapi({ description: "The series split, the largest part first" }),
  })
  .openapi("OverviewSeries");

const OverviewResponse = z
  .object({
    since: z.string().openapi({ description: "The start of the first hour (UTC)", example: "2026-12-03T05:00:00Z" }),
    hours: z.array(z.string()).openapi({ description: "The UTC hours counted, `YYYY-MM-DDTHH:00:00Z`, oldest first; the last is the current hour" }),
    series: z.array(Series),
  })
  .openapi("Overview");

type Overview = z.infer<typeof OverviewResponse>;

/** Sums a feature's counts into the hours of the window: per hour, and per part. */
function seriesOf(id: SeriesId, rows: readonly HourCount[], starts: readonly string[]): Overview["series"][number] {
  const slot = new Map(starts.map((s, i) => [s, i]));
  const counts = starts.map(() => 0);
  const parts = new Map<string, number[]>();
  for (const row of rows) {
    const i = slot.get(row.hour);
    if (i === undefined) continue;
    counts[i]! += row.count;
    const part = parts.get(row.series) ?? starts.map(() => 0);
    part[i]! += row.count;
    parts.set(row.series, part);
  }
  const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
  const { label, split } = SERIES[id];
  return {
    id,
    label,
    total: sum(counts),
    counts,
    split,
    parts: [...parts].map(([name, c]) => ({ name, total: sum(c), counts: c })).sort((a, b) => b.total - a.total || a.name.localeCompare(b.name)),
  };
}

/** The organization's figures for the `OVERVIEW_HOURS` UTC hours ending with the current one. */
export async function overview(data: OrgData, now = new Date()): Promise<Overview> {
  const hours = hourStarts(now, OVERVIEW_HOURS);
  const since = hours[0]!;
  const counted = await Promise.all(SERIES_IDS.map((id) => SERIES[id].count(data, since)));
  return { since, hours, series: SERIES_IDS.map((id, i) => seriesOf(id, counted[i]!, hours)) };
}

export const overviewRoutes = createRouter<HttpEnv>().openapi(
  createRoute({
    method: "get",
    path: "/",
    tags: ["Organization"],
    summary: "The last 24 hours of the organization: messages in, executions by status, alerts, exports and device readings, hour by hour",
    security,
    middleware: requirePermission("org:read"),
    responses: { 200: { description: "Counts per series, hour by hour", content: json(OverviewResponse) }, ...commonErrors },
  }),
  async (c) => c.json(await overview(c.get("ctx")), 200),
);
