// Absence of data, evaluated by the minute cron (src/main/scheduled.ts): the absence rules of a shard
// whose next look is due are judged (absence.ts) on their latest reading and their devices' last
// sync, which the device platform answers through `lastSyncOf` (its sync logs). A silent rule
// opens an episode (DetectedIssue, Flag, Communications) that the next reading ends. Alerts whose
// publication failed earlier are retried here too.
import { type Logger, logger } from "../../platform/observability/log";
import type { OrgContext } from "../../platform/org-context";
import type { Database } from "../../platform/db/client";
import { absenceVerdict } from "./absence";
import { absenceMessage } from "./messages";
import { publishPending } from "./publish";
import { commitRuleStep, newAlert } from "./rule-commit";
import { AlertStore, RULE_STREAM, RuleStateStore, RuleStore } from "./store";
import type { AlertRow, AlertRuleRow, AlertRuleStateRow } from "./tables";

/** The latest sync of a device (ISO instant), when the device platform knows it. */
export type LastSyncOf = (ctx: OrgContext, deviceId: string) => Promise<string | undefined>;

const DUE_PER_TICK = 500;
const UNPUBLISHED_PER_TICK = 100;

async function lastSync(ctx: OrgContext, rule: AlertRuleRow, state: AlertRuleStateRow, lastSyncOf: LastSyncOf): Promise<number | undefined> {
  const devices = rule.deviceId ? [rule.deviceId] : state.devices;
  const times = (await Promise.all(devices.map((d) => lastSyncOf(ctx, d)))).map((s) => (s ? Date.parse(s) : Number.NaN)).filter(Number.isFinite);
  return times.length ? Math.max(...times) : undefined;
}

/** Judges one absence rule at `now`; answers the alert it opened, if any. */
export async function checkAbsence(ctx: OrgContext, rule: AlertRuleRow, now: number, lastSyncOf: LastSyncOf): Promise<string | undefined> {
  const read = await new RuleStateStore(ctx.db).get(ctx.orgId, rule.id, RULE_STREAM);
  if (!read) return undefined;
  const syncedAt = await lastSync(ctx, rule, read, lastSyncOf);
  const outcome = await commitRuleStep(ctx, rule, { id: RULE_STREAM, fresh: false }, (state) => {
    // Not an absence rule (any more), disabled, or already silent: nothing to look at until a reading comes.
    if (rule.kind !== "data_absence" || !rule.enabled || state.openAlertId) return { next: { ...state, nextCheckAt: null }, opened: [], ended: [] };
    const lastReadingAt = state.lastReadingAt ?? Date.parse(rule.updatedAt);
    const verdict = absenceVerdict({ spanMs: (rule.params.span_minutes ?? 0) * 60_000, lastReadingAt, ...(syncedAt !== undefined ? { lastSyncAt: syncedAt } : {}), now });
    if (!verdict.silent) return { next: { ...state, nextCheckAt: verdict.nextCheckAt }, opened: [], ended: [] };
    const alert = newAlert(rule, {
      message: absenceMessage(rule, verdict.since, now, verdict.reason),
      value: Math.round((now - verdict.since) / 60_000),
      limit: rule.params.span_minutes ?? null,
      observationIds: state.lastObservationId ? [state.lastObservationId] : [],
      startedAt: new Date(verdict.since).toISOString(),
    });
    return { next: { ...state, openAlertId: alert.id, nextCheckAt: null }, opened: [alert], ended: [] };
  });
  return outcome?.opened[0]?.id;
}

/** Every due absence rule of the org at `now`, then its alerts still waiting for publication. */
export async function runOrgAlertChecks(ctx: OrgContext, due: AlertRuleStateRow[], now: number, lastSyncOf: LastSyncOf): Promise<{ opened: string[]; published: number }> {
  const rules = new RuleStore(ctx.db);
  const opened: string[] = [];
  for (const state of due) {
    const rule = await rules.get(ctx.orgId, state.ruleId);
    if (!rule) continue;
    const id = await checkAbsence(ctx, rule, now, lastSyncOf);
    if (id) opened.push(id);
  }
  const pending = await new AlertStore(ctx.db).unpublished(UNPUBLISHED_PER_TICK, ctx.orgId);
  return { opened, published: await publishPending(ctx, pending) };
}

/**
 * The cron's work on one shard: due absence rules and unpublished alerts, org by org.
 * `contextOf` answers undefined for an org not placed here or being moved (skipped).
 */
export async function runShardAlertChecks(shard: Database, at: Date, contextOf: (orgId: string) => Promise<OrgContext | undefined>, lastSyncOf: LastSyncOf, log: Logger = logger(undefined)): Promise<string[]> {
  const now = at.getTime();
  const [due, pending] = await Promise.all([new RuleStateStore(shard).due(now, DUE_PER_TICK), new AlertStore(shard).unpublished(UNPUBLISHED_PER_TICK)]);
  const orgs = new Map<string, AlertRuleStateRow[]>();
  for (const s of due) {
    const list = orgs.get(s.orgId);
    if (list) list.push(s);
    else orgs.set(s.orgId, [s]);
  }
  for (const a of pending as AlertRow[]) if (!orgs.has(a.orgId)) orgs.set(a.orgId, []);
  const opened: string[] = [];
  for (const [orgId, states] of orgs) {
    const ctx = await contextOf(orgId);
    if (!ctx) continue;
    try {
      opened.push(...(await runOrgAlertChecks(ctx, states, now, lastSyncOf)).opened);
    } catch (e) {
      // One org's failure must not stop the shard's others; its rules stay due for the next tick.
      log.error("alert checks failed", { org: orgId, error_message: String(e) });
    }
  }
  return opened;
}
