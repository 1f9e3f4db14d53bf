// Reads and writes of the alert tables on the org's shard. A rule's state is replaced, never
// updated in place: the commit deletes the version it read and inserts the next, so a racing
// evaluator that read the same version hits the primary key and its whole batch (state and
// alerts) rolls back; it then re-reads and evaluates again (evaluate-readings.ts).
import { and, count, desc, eq, gte, inArray, isNull, lt, lte, or, type SQL, sql } from "drizzle-orm";
import type { Database, Write } from "../../platform/db/client";
import type { KnownEpisode } from "./episodes";
import { type AlertRow, type AlertRuleRow, type AlertRuleStateRow, type AlertState, alertRuleStates, alertRules, alerts } from "./tables";

export type NewRule = typeof alertRules.$inferInsert;

/** The cron stops retrying an alert's publication after this many failures in a row (the alert shows publish_error). */
export const MAX_PUBLISH_ATTEMPTS = 10;
export type NewAlert = typeof alerts.$inferInsert;
export type RuleState = Omit<AlertRuleStateRow, "orgId" | "ruleId" | "stream" | "version" | "updatedAt">;

/** The stream of an absence rule: the rule as a whole. */
export const RULE_STREAM = "";

export const initialState = (): RuleState => ({ openAlertId: null, watermark: null, watermarkIds: [], lastReadingAt: null, lastObservationId: null, recent: [], devices: [], nextCheckAt: null });

const page = async <T>(rows: Promise<T[]>, total: Promise<{ n: number }[]>) => {
  const [r, t] = await Promise.all([rows, total]);
  return { rows: r, total: t[0]?.n ?? 0 };
};

export interface RuleFilter {
  patientId?: string;
  deviceId?: string;
  metric?: string;
  kind?: string;
}

export class RuleStore {
  constructor(private readonly db: Database) {}

  get(orgId: string, id: string): Promise<AlertRuleRow | undefined> {
    return this.db.select().from(alertRules).where(and(eq(alertRules.orgId, orgId), eq(alertRules.id, id))).get();
  }

  list(orgId: string, filter: RuleFilter, limit: number, offset: number) {
    const parts: SQL[] = [eq(alertRules.orgId, orgId)];
    if (filter.patientId) parts.push(eq(alertRules.patientId, filter.patientId));
    if (filter.deviceId) parts.push(eq(alertRules.deviceId, filter.deviceId));
    if (filter.metric) parts.push(eq(alertRules.metric, filter.metric));
    if (filter.kind) parts.push(eq(alertRules.kind, filter.kind as AlertRuleRow["kind"]));
    const where = and(...parts);
    return page(
      this.db.select().from(alertRules).where(where).orderBy(desc(alertRules.createdAt), desc(alertRules.id)).limit(limit).offset(offset),
      this.db.select({ n: count() }).from(alertRules).where(where),
    );
  }

  /** Every rule of these patients (conflict checks, evaluation). */
  ofPatients(orgId: string, patientIds: string[]): Promise<AlertRuleRow[]> {
    if (!patientIds.length) return Promise.resolve([]);
    return this.db.select().from(alertRules).where(and(eq(alertRules.orgId, orgId), inArray(alertRules.patientId, patientIds)));
  }

  /** The rule, with the rule-level state an absence rule starts from. */
  async insert(row: NewRule, state?: AlertRuleStateRow): Promise<void> {
    await this.db.batch([this.db.insert(alertRules).values(row), ...(state ? [this.db.insert(alertRuleStates).values(state)] : [])]);
  }

  /** Replaces the rule and starts its evaluation afresh (a changed limit re-arms it): every stream's state goes. */
  async replace(orgId: string, id: string, row: Partial<NewRule>, state?: AlertRuleStateRow): Promise<boolean> {
    const [updated] = await this.db.batch([
      this.db.update(alertRules).set(row).where(and(eq(alertRules.orgId, orgId), eq(alertRules.id, id))).returning({ id: alertRules.id }),
      this.db.delete(alertRuleStates).where(and(eq(alertRuleStates.orgId, orgId), eq(alertRuleStates.ruleId, id))),
      ...(state ? [this.db.insert(alertRuleStates).values(state)] : []),
    ]);
    return updated.length > 0;
  }

  async delete(orgId: string, id: string): Promise<boolean> {
    const [deleted] = await this.db.batch([
      this.db.delete(alertRules).where(and(eq(alertRules.orgId, orgId), eq(alertRules.id, id))).returning({ id: alertRules.id }),
      this.db.delete(alertRuleStates).where(and(eq(alertRuleStates.orgId, orgId), eq(alertRuleStates.ruleId, id))),
    ]);
    return deleted.length > 0;
  }
}

export class RuleStateStore {
  constructor(private readonly db: Database) {}

  get(orgId: string, ruleId: string, stream: string): Promise<AlertRuleStateRow | undefined> {
    return this.db
      .select()
      .from(alertRuleStates)
      .where(and(eq(alertRuleStates.orgId, orgId), eq(alertRuleStates.ruleId, ruleId), eq(alertRuleStates.stream, stream)))
      .get();
  }

  /**
   * The writes replacing version `read` of a stream's state with `next` (version read + 1); a
   * stream without state yet (`read` −1) is inserted, so two first writers collide on the key too.
   */
  replaceWrites(orgId: string, ruleId: string, stream: string, read: number, next: RuleState): Write[] {
    const key = and(eq(alertRuleStates.orgId, orgId), eq(alertRuleStates.ruleId, ruleId), eq(alertRuleStates.stream, stream));
    return [
      this.db.delete(alertRuleStates).where(and(key, eq(alertRuleStates.version, read))),
      this.db.insert(alertRuleStates).values({ ...next, orgId, ruleId, stream, version: read + 1, updatedAt: new Date().toISOString() }),
    ];
  }

  /** Absence rules of every org on this shard whose next look is due. */
  due(now: number, limit: number): Promise<AlertRuleStateRow[]> {
    return this.db.select().from(alertRuleStates).where(lte(alertRuleStates.nextCheckAt, now)).orderBy(alertRuleStates.nextCheckAt).limit(limit);
  }
}

export interface AlertFilter {
  patientId?: string;
  state?: AlertState;
  kind?: string;
  ruleId?: string;
}

export class AlertStore {
  constructor(private readonly db: Database) {}

  get(orgId: string, id: string): Promise<AlertRow | undefined> {
    return this.db.select().from(alerts).where(and(eq(alerts.orgId, orgId), eq(alerts.id, id))).get();
  }

  list(orgId: string, filter: AlertFilter, limit: number, offset: number) {
    const parts: SQL[] = [eq(alerts.orgId, orgId)];
    if (filter.patientId) parts.push(eq(alerts.patientId, filter.patientId));
    if (filter.state) parts.push(eq(alerts.state, filter.state));
    if (filter.kind) parts.push(eq(alerts.kind, filter.kind as AlertRow["kind"]));
    if (filter.ruleId) parts.push(eq(alerts.ruleId, filter.ruleId));
    const where = and(...parts);
    return page(
      this.db.select().from(alerts).where(where).orderBy(desc(alerts.createdAt), desc(alerts.id)).limit(limit).offset(offset),
      this.db.select({ n: count() }).from(alerts).where(where),
    );
  }

  /**
   * The episodes a value rule's stream had that overlap [from, to] (ms): its alerts for the
   * stream's device (the patient's index, then the rule), as start and end.
   */
  async episodesOf(rule: AlertRuleRow, deviceId: string, from: number, to: number): Promise<KnownEpisode[]> {
    const rows = await this.db
      .select({ startedAt: alerts.startedAt, episodeEndedAt: alerts.episodeEndedAt })
      .from(alerts)
      .where(
        and(
          eq(alerts.orgId, rule.orgId),
          eq(alerts.patientId, rule.patientId),
          eq(alerts.ruleId, rule.id),
          eq(alerts.deviceId, deviceId),
          lte(alerts.startedAt, new Date(to).toISOString()),
          or(isNull(alerts.episodeEndedAt), gte(alerts.episodeEndedAt, new Date(from).toISOString())),
        ),
      );
    return rows.map((r) => ({ start: Date.parse(r.startedAt), end: r.episodeEndedAt === null ? null : Date.parse(r.episodeEndedAt) }));
  }

  insertWrite(row: NewAlert): Write {
    return this.db.insert(alerts).values(row);
  }

  /** The episode of `id` ended: its FHIR resources need another look (the Flag goes inactive). */
  endEpisodeWrite(orgId: string, id: string, at: string): Write {
    return this.db
      .update(alerts)
      .set({ episodeEndedAt: at, publishedAt: null, publishAttempts: 0, updatedAt: new Date().toISOString() })
      .where(and(eq(alerts.orgId, orgId), eq(alerts.id, id)));
  }

  /** Moves an alert to `state` unless it changed since it was read; undefined when it had. */
  async transition(row: AlertRow, set: Partial<NewAlert>): Promise<AlertRow | undefined> {
    const [updated] = await this.db
      .update(alerts)
      .set({ ...set, publishedAt: null, publishAttempts: 0, updatedAt: new Date().toISOString() })
      .where(and(eq(alerts.orgId, row.orgId), eq(alerts.id, row.id), eq(alerts.updatedAt, row.updatedAt)))
      .returning();
    return updated;
  }

  /** Records what publishing did; published only if nobody changed the alert meanwhile. */
  async published(row: AlertRow, set: Pick<AlertRow, "resources" | "pipelineRuns">): Promise<void> {
    await this.db
      .update(alerts)
      .set({ ...set, publishedAt: new Date().toISOString(), publishAttempts: 0, publishError: null })
      .where(and(eq(alerts.orgId, row.orgId), eq(alerts.id, row.id), eq(alerts.updatedAt, row.updatedAt)));
  }

  async publishFailed(row: AlertRow, error: string): Promise<void> {
    await this.db
      .update(alerts)
      .set({ publishAttempts: sql`${alerts.publishAttempts} + 1`, publishError: error.slice(0, 2000) })
      .where(and(eq(alerts.orgId, row.orgId), eq(alerts.id, row.id)));
  }

  /** Alerts of this shard (or org) whose FHIR resources or pipelines are not yet in step with them, fewest failures first. */
  unpublished(limit: number, orgId?: string): Promise<AlertRow[]> {
    const pending = and(isNull(alerts.publishedAt), lt(alerts.publishAttempts, MAX_PUBLISH_ATTEMPTS));
    return this.db
      .select()
      .from(alerts)
      .where(orgId ? and(pending, eq(alerts.orgId, orgId)) : pending)
      .orderBy(alerts.publishAttempts)
      .limit(limit);
  }
}
