// One evaluation step of one rule, committed atomically with the alerts it creates or ends:
// read the rule's state, compute, replace the state version read (store.ts) in the same D1
// batch as the alert writes. A racing evaluator makes the batch fail on the state's key; the
// step then runs again on the state the winner left.
import type { OrgContext } from "../../platform/org-context";
import type { Write } from "../../platform/db/client";
import { isUniqueViolation } from "../../platform/db/errors";
import { AlertStore, type NewAlert, type RuleState, RuleStateStore, initialState } from "./store";
import type { AlertRuleRow, AlertRuleStateRow } from "./tables";

export interface StepOutcome {
  next: RuleState;
  /** Alerts the step opens (episodes that began). */
  opened: NewAlert[];
  /** Alerts already stored whose episode the step ended, with when. */
  ended: { id: string; at: string }[];
}

const MAX_ATTEMPTS = 8;

/**
 * Runs `step` on the current state of one of the rule's streams until it commits; undefined when
 * the step has nothing to do, or the stream must exist (`fresh` false: an absence rule's) and does
 * not (the rule was deleted or replaced meanwhile).
 */
export async function commitRuleStep(
  ctx: OrgContext,
  rule: AlertRuleRow,
  stream: { id: string; fresh: boolean },
  step: (state: AlertRuleStateRow) => StepOutcome | undefined | Promise<StepOutcome | undefined>,
): Promise<StepOutcome | undefined> {
  const states = new RuleStateStore(ctx.db);
  const alerts = new AlertStore(ctx.db);
  for (let attempt = 1; ; attempt++) {
    const stored = await states.get(ctx.orgId, rule.id, stream.id);
    if (!stored && !stream.fresh) return undefined;
    const state = stored ?? { ...initialState(), orgId: ctx.orgId, ruleId: rule.id, stream: stream.id, version: -1, updatedAt: "" };
    const outcome = await step(state);
    if (!outcome) return undefined;
    const writes: Write[] = [
      ...states.replaceWrites(ctx.orgId, rule.id, stream.id, state.version, outcome.next),
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
    publishAttempts: 0,
    publishError: null,
    createdAt: now,
    updatedAt: now,
  };
}
