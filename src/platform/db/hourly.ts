// Counts per UTC hour, the shape every feature's 24-hour figures share (the channels dashboard,
// the console's Overview): the hour bucket as SQL computes it and the hour starts of a window.
import { and, count, eq, type SQL, type SQLWrapper, sql } from "drizzle-orm";
import type { SQLiteColumn, SQLiteTable } from "drizzle-orm/sqlite-core";
import type { Database } from "./client";

/** Rows of one kind counted in one UTC hour; `series` splits them (a status, a kind), "" when nothing does. */
export interface HourCount {
  /** The UTC hour, `YYYY-MM-DDTHH:00:00Z`. */
  hour: string;
  series: string;
  count: number;
}

/** The UTC hour of an ISO timestamp column, as `YYYY-MM-DDTHH:00:00Z`. */
export const hourOf = (column: SQLWrapper): SQL<string> => sql<string>`strftime('%Y-%m-%dT%H:00:00Z', ${column})`;

/** `column` (ISO text) at or after `from`; julianday, not text order: a timestamp may carry its own offset. */
export const atOrAfter = (column: SQLWrapper, from: string): SQL => sql`julianday(${column}) >= julianday(${from})`;

/** The `hours` UTC hours ending with the current one, as `YYYY-MM-DDTHH:00:00Z`. */
export function hourStarts(now: Date, hours: number): string[] {
  const current = Math.floor(now.getTime() / 3_600_000) * 3_600_000;
  return Array.from({ length: hours }, (_, i) => new Date(current - (hours - 1 - i) * 3_600_000).toISOString().replace(".000Z", "Z"));
}

/** Where a table keeps its rows' organization and time (ISO text) and, optionally, what splits them. */
export interface HourlyColumns {
  org: SQLiteColumn;
  at: SQLiteColumn;
  series?: SQLiteColumn;
}

/** The org's rows of `table` since `from` (ISO), counted per UTC hour (and series), in one grouped query. */
export async function countsByHour(db: Database, table: SQLiteTable, columns: HourlyColumns, orgId: string, from: string): Promise<HourCount[]> {
  const hour = hourOf(columns.at);
  const series = columns.series ? sql<string>`coalesce(${columns.series}, '')` : sql<string>`''`;
  return db
    .select({ hour, series, count: count() })
    .from(table)
    .where(and(eq(columns.org, orgId), atOrAfter(columns.at, from)))
    .groupBy(hour, series);
}
