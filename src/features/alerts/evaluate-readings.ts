// The entry point the device platform calls right after readings are stored: every enabled
// rule of the readings' patients sees the readings it watches, in time order (a week synced at
// once is replayed as it happened), and opens or ends episodes. Sentinel and absent values are
// never evaluated. A reading already evaluated (at the stream's watermark, same Observation and
// version) is skipped, so a redelivery evaluates nothing twice; an Observation's new version (a
// vendor's changed record) is a reading not yet seen. A value rule's late readings (behind its
// stream's latest) are evaluated among the episodes the stream had, without moving its live
// state (episodes.ts, `stepLate`; docs/alerts.md, "Readings, order and late data").
import type { OrgContext } from "../../platform/org-context";
import type { Reading } from "../devices";
import { type KnownEpisode, type Point, stepEpisodes, stepLate, type Transition } from "./episodes";
import { valueMessage } from "./messages";
import { publishPending } from "./publish";
import { type StepOutcome, commitRuleStep, newAlert } from "./rule-commit";
import { AlertStore, RULE_STREAM, RuleStore, type RuleState } from "./store";
import type { AlertRow, AlertRuleRow, AlertRuleStateRow } from "./tables";

export interface StoredReading {
  reading: Reading;
  /** The Observation the reading became. */
  observationId: string;
  /** Its version when the reading changed an Observation already stored (absent for a new one). */
  version?: string;
}

/** One numeric value of a reading: the reading's own, or one component's (systolic, FEV1). */
export interface Sample extends Point {
  patientId: string;
  deviceId: string;
  metric: string;
  unit: string;
  /** What the watermark remembers it by: the Observation, and its version after an update. */
  mark: string;
}

export interface EvaluationResult {
  /** Alerts opened by these readings (episodes that began). */
  opened: AlertRow[];
  /** Alerts whose episode these readings ended (value back to normal, data again). */
  ended: string[];
}

const timeOf = (r: Reading) => Date.parse("at" in r.time ? r.time.at : r.time.end);

/** The values rules may look at: finite numbers only, never a reading marked absent. */
export function samplesOf(stored: readonly StoredReading[]): Sample[] {
  const seen = new Set<string>();
  const out: Sample[] = [];
  for (const { reading: r, observationId, version } of stored) {
    const t = timeOf(r);
    if (r.absentReason || !Number.isFinite(t)) continue;
    const values = [{ metric: r.metric, value: r.value, unit: r.unit }, ...(r.components ?? [])];
    for (const { metric, value, unit } of values) {
      if (typeof value !== "number" || !Number.isFinite(value)) continue;
      const key = `${observationId}\n${metric}`;
      if (seen.has(key)) continue;
      seen.add(key);
      out.push({ patientId: r.patientId, deviceId: r.deviceId, metric, unit, t, v: value, observationId, mark: version ? `${observationId}/_history/${version}` : observationId });
    }
  }
  return out.sort((a, b) => a.t - b.t || (a.observationId < b.observationId ? -1 : a.observationId > b.observationId ? 1 : 0));
}

export function watches(rule: AlertRuleRow, s: Sample): boolean {
  return s.patientId === rule.patientId && (!rule.metric || s.metric === rule.metric) && (!rule.deviceId || s.deviceId === rule.deviceId);
}

/** The samples a rule watches, per stream: per device for value rules, all together for absence. */
function streamsOf(rule: AlertRuleRow, samples: Sample[]): Map<string, Sample[]> {
  const streams = new Map<string, Sample[]>();
  for (const s of samples) {
    if (!watches(rule, s)) continue;
    const stream = rule.kind === "data_absence" ? RULE_STREAM : s.deviceId;
    const list = streams.get(stream);
    if (list) list.push(s);
    else streams.set(stream, [s]);
  }
  return streams;
}

/** Samples newer than the rule's watermark (or at it, from an Observation not yet seen there). */
function fresh(state: AlertRuleStateRow, samples: Sample[]): Sample[] {
  const w = state.watermark;
  if (w === null) return samples;
  const atMark = new Set(state.watermarkIds);
  return samples.filter((s) => s.t > w || (s.t === w && !atMark.has(s.mark)));
}

/** A value rule's samples behind its stream's watermark (late data); an absence rule has none (a reading older than its latest says nothing about the silence since). */
export function lateSamples(rule: AlertRuleRow, state: AlertRuleStateRow, samples: Sample[]): Sample[] {
  const w = state.watermark;
  return w === null || rule.kind === "data_absence" ? [] : samples.filter((s) => s.t < w);
}

/** The state as it is, for a step that only evaluated late samples. */
const unchanged = ({ orgId: _o, ruleId: _r, stream: _s, version: _v, updatedAt: _u, ...state }: AlertRuleStateRow): RuleState => state;

/** The state every kind keeps: watermark, latest reading, devices seen; absence's next look. */
function advanced(rule: AlertRuleRow, state: AlertRuleStateRow, samples: Sample[]): RuleState {
  const last = samples[samples.length - 1] as Sample;
  const atLast = samples.filter((s) => s.t === last.t).map((s) => s.mark);
  const watermarkIds = state.watermark === last.t ? [...new Set([...state.watermarkIds, ...atLast])] : [...new Set(atLast)];
  const spanMs = (rule.params.span_minutes ?? 0) * 60_000;
  return {
    openAlertId: state.openAlertId,
    watermark: last.t,
    watermarkIds,
    lastReadingAt: Math.max(state.lastReadingAt ?? last.t, last.t),
    lastObservationId: last.observationId,
    recent: state.recent,
    devices: [...new Set([...state.devices, ...samples.map((s) => s.deviceId)])],
    nextCheckAt: rule.kind === "data_absence" ? last.t + spanMs + 1 : null,
  };
}

/**
 * What the readings do to one rule's episodes: the fresh ones in time order from the stream's
 * state, then the late ones among the stream's `known` episodes (the alerts of the rule for the
 * stream that overlap them), each late alert started at its reading's time and ended within the step.
 */
export function stepRule(rule: AlertRuleRow, state: AlertRuleStateRow, all: Sample[], known: readonly KnownEpisode[] = []): StepOutcome | undefined {
  const samples = fresh(state, all);
  const late = lateSamples(rule, state, all);
  if (!samples.length && !late.length) return undefined;
  const live = samples.length ? stepFresh(rule, state, samples) : { next: unchanged(state), opened: [], ended: [] };
  if (!late.length) return live;
  const stepped = stepLate(rule.kind, rule.params, live.next.recent, late, known);
  const opened = lateAlertsOf(rule, stepped.transitions, late);
  // Late readings that open nothing and join no window change nothing to write.
  if (!samples.length && !opened.length && rule.kind !== "rapid_change") return undefined;
  return { ...live, next: { ...live.next, recent: stepped.recent }, opened: [...live.opened, ...opened] };
}

type Fire = Extract<Transition, { type: "fire" }>;

/** The alert a fire transition opens; a late one says so, with its reading's time. */
function alertOf(rule: AlertRuleRow, tr: Fire, byObservation: ReadonlyMap<string, Sample>, late = false): StepOutcome["opened"][number] {
  const at = new Date(tr.at).toISOString();
  const sample = byObservation.get(tr.observations[tr.observations.length - 1] as string) as Sample;
  const message = valueMessage(rule, tr, sample.unit) + (late ? ` (a late reading: measured at ${at}, delivered after later ones)` : "");
  return newAlert(rule, { message, value: tr.value, limit: tr.limit, observationIds: tr.observations, startedAt: at, deviceId: sample.deviceId });
}

/** The late alerts of `stepLate`'s transitions, each ended in place by the rearm that follows it. */
function lateAlertsOf(rule: AlertRuleRow, transitions: readonly Transition[], late: Sample[]): StepOutcome["opened"] {
  const byObservation = new Map(late.map((s) => [s.observationId, s]));
  const opened: StepOutcome["opened"] = [];
  for (const tr of transitions) {
    if (tr.type === "fire") opened.push(alertOf(rule, tr, byObservation, true));
    else {
      const last = opened.at(-1);
      if (last && !last.episodeEndedAt) last.episodeEndedAt = new Date(tr.at).toISOString();
    }
  }
  return opened;
}

/** What the fresh readings do, from the stream's live state. */
function stepFresh(rule: AlertRuleRow, state: AlertRuleStateRow, samples: Sample[]): StepOutcome {
  const next = advanced(rule, state, samples);
  if (rule.kind === "data_absence") {
    // Any reading ends a silence: the Flag goes inactive; the rule watches again from this reading.
    const ended = state.openAlertId ? [{ id: state.openAlertId, at: new Date((samples[0] as Sample).t).toISOString() }] : [];
    return { next: { ...next, openAlertId: null }, opened: [], ended };
  }
  const stepped = stepEpisodes(rule.kind, rule.params, { firing: state.openAlertId !== null, recent: state.recent }, samples);
  const opened: StepOutcome["opened"] = [];
  const ended: StepOutcome["ended"] = [];
  let open = state.openAlertId;
  const byObservation = new Map(stepped.transitions.length ? samples.map((s) => [s.observationId, s]) : []);
  for (const tr of stepped.transitions) {
    const at = new Date(tr.at).toISOString();
    if (tr.type === "fire") {
      const alert = alertOf(rule, tr, byObservation);
      opened.push(alert);
      open = alert.id;
    } else if (open) {
      const inBatch = opened.find((a) => a.id === open);
      if (inBatch) inBatch.episodeEndedAt = at;
      else ended.push({ id: open, at });
      open = null;
    }
  }
  return { next: { ...next, openAlertId: open, recent: stepped.state.recent }, opened, ended };
}

export async function evaluateReadings(ctx: OrgContext, stored: readonly StoredReading[]): Promise<EvaluationResult> {
  const samples = samplesOf(stored);
  const patients = [...new Set(samples.map((s) => s.patientId))];
  const rules = (await new RuleStore(ctx.db).ofPatients(ctx.orgId, patients)).filter((r) => r.enabled);
  const openedIds: string[] = [];
  const ended: string[] = [];
  const alerts = new AlertStore(ctx.db);
  for (const rule of rules) {
    for (const [stream, watched] of streamsOf(rule, samples)) {
      // Read in each attempt: a racing evaluator's late alert is then a known episode, not a second one.
      const step = async (state: AlertRuleStateRow) => {
        const late = lateSamples(rule, state, watched);
        const known = late.length ? await alerts.episodesOf(rule, stream, (late[0] as Sample).t, (late[late.length - 1] as Sample).t) : [];
        return stepRule(rule, state, watched, known);
      };
      const outcome = await commitRuleStep(ctx, rule, { id: stream, fresh: rule.kind !== "data_absence" }, step);
      if (!outcome) continue;
      openedIds.push(...outcome.opened.map((a) => a.id));
      ended.push(...outcome.ended.map((e) => e.id));
    }
  }
  const touched = (await Promise.all([...openedIds, ...ended].map((id) => alerts.get(ctx.orgId, id)))).filter((r): r is AlertRow => r !== undefined);
  await publishPending(ctx, touched);
  const opened = (await Promise.all(openedIds.map((id) => alerts.get(ctx.orgId, id)))).filter((r): r is AlertRow => r !== undefined);
  return { opened, ended };
}
