// One evaluation step of one rule, committed atomically with the alerts it creates or ends:
// read the rule's state, compute, replace the state version read (store.ts) in the same D1
// batch as the alert writes. A racing evaluator makes the batch fail on the state's key; the
// step then runs again on the state the winner left.
import type { OrgContext } from "../../context";
import type { Write } from "../../platform/db/client";
import { isUniqueViolation } from "../../platform/db/errors";
import { AlertStore, type NewAlert, type RuleState, RuleStateStore } from "./store";
import type { AlertRuleRow, AlertRuleStateRow } from "./tables";

export interface StepOutcome {
  next: RuleState;
  /** Alerts the step opens (episodes that began). */
  opened: NewAlert[];
  /** Alerts already stored whose episode the step ended, with when. */
  ended: { id: string; at: string }[];
}

const MAX_ATTEMPTS = 8;

/** Runs `step` on the rule's current state until it commits; undefined when the rule has no state (deleted) or the step has nothing to do. */
export async function commitRuleStep(ctx: OrgContext, rule: AlertRuleRow, step: (state: AlertRuleStateRow) => StepOutcome | undefined): Promise<StepOutcome | undefined> {
  const states = new RuleStateStore(ctx.db);
  const alerts = new AlertStore(ctx.db);
  for (let attempt = 1; ; attempt++) {
    const state = (await states.of(ctx.orgId, [rule.id])).get(rule.id);
    if (!state) return undefined;
    const outcome = step(state);
    if (!outcome) return undefined;
    const writes: Write[] = [
      ...states.replaceWrites(ctx.orgId, rule.id, state.version, outcome.next),
      ...outcome.opened.map((a) => alerts.insertWrite(a)),
      ...outcome.ended.map((e) => alerts.endEpisodeWrite(ctx.orgId, e.id, e.at)),
    ];
    try {
      await ctx.db.batch(writes as [Write, ...Write[]]);
      return outcome;
    } catch (e) {
      if (!isUniqueViolation(e) || attempt >= MAX_ATTEMPTS) throw e;
    }
  }
}

/** A new alert row for `rule`, active and not yet published. */
export function newAlert(rule: AlertRuleRow, fields: Pick<NewAlert, "message" | "value" | "limit" | "observationIds" | "startedAt"> & { deviceId?: string | null }): NewAlert {
  const now = new Date().toISOString();
  return {
    orgId: rule.orgId,
    id: crypto.randomUUID(),
    ruleId: rule.id,
    patientId: rule.patientId,
    kind: rule.kind,
    metric: rule.metric,
    deviceId: fields.deviceId ?? rule.deviceId,
    severity: rule.severity,
    recipients: rule.recipients,
    pipelineId: rule.pipelineId,
    state: "active",
    message: fields.message,
    value: fields.value,
    limit: fields.limit,
    observationIds: fields.observationIds,
    startedAt: fields.startedAt,
    episodeEndedAt: null,
    resources: {},
    pipelineRuns: [],
    publishedAt: null,
    createdAt: now,
    updatedAt: now,
  };
}
