// Episodes of a value rule (high, low, score below, rapid change), pure: readings in time order
// move a rule between armed and firing. It fires on the first breaching reading, stays quiet
// while readings keep breaching (one alert per excursion), and re-arms only once a reading is
// back inside the limit by the hysteresis margin (docs/alerts.md, "Episodes").
import { type AlertKind, type Direction, type RuleParams, effectiveHysteresis } from "./rule";
import type { RecentPoint } from "./tables";

export interface Point {
  /** Reading time, ms since the epoch (an interval's end). */
  t: number;
  v: number;
  observationId: string;
}

export type Transition =
  | { type: "fire"; at: number; value: number; limit: number; observations: string[]; reading: number; from?: number }
  | { type: "rearm"; at: number; observationId: string };

export interface EpisodeState {
  firing: boolean;
  /** Rapid change: the readings within the span before the latest one. */
  recent: RecentPoint[];
}

/** A rapid-change rule keeps at most this many readings of its span (1 s heart rate over 2 h would be 7,200). */
export const MAX_RECENT = 5_000;

interface Measure {
  /** How far the reading goes (the value, or the change within the span). */
  value: number;
  breach: boolean;
  clear: boolean;
  /** Earlier readings that the alert also implicates (the rapid change's baseline), and its value. */
  also: string[];
  from?: number;
}

function change(direction: Direction, p: Point, window: RecentPoint[]): { amount: number; baseline?: RecentPoint } {
  let best: { amount: number; baseline?: RecentPoint } = { amount: 0 };
  for (const q of window) {
    const rise = p.v - q.v;
    const amount = direction === "rise" ? rise : direction === "drop" ? -rise : Math.abs(rise);
    if (amount > best.amount) best = { amount, baseline: q };
  }
  return best;
}

function measure(kind: AlertKind, params: RuleParams, hysteresis: number, p: Point, window: RecentPoint[]): Measure {
  const threshold = params.threshold ?? 0;
  switch (kind) {
    case "high_value":
      return { value: p.v, breach: p.v > threshold, clear: p.v <= threshold - hysteresis, also: [] };
    case "low_value":
    case "score_below":
      return { value: p.v, breach: p.v < threshold, clear: p.v >= threshold + hysteresis, also: [] };
    case "rapid_change": {
      const amount = params.amount ?? 0;
      const { amount: moved, baseline } = change(params.direction ?? "either", p, window);
      return { value: moved, breach: moved >= amount, clear: moved < amount - hysteresis, also: baseline ? [baseline.o] : [], ...(baseline ? { from: baseline.v } : {}) };
    }
    default:
      throw new Error(`${kind} is not a value rule`);
  }
}

const limitOf = (kind: AlertKind, params: RuleParams) => (kind === "rapid_change" ? (params.amount ?? 0) : (params.threshold ?? 0));

/** Runs `points` (sorted by time) through a value rule from `state`; answers the new state and what happened. */
export function stepEpisodes(kind: AlertKind, params: RuleParams, state: EpisodeState, points: readonly Point[]): { state: EpisodeState; transitions: Transition[] } {
  const hysteresis = effectiveHysteresis(kind, params);
  const spanMs = (params.span_minutes ?? 0) * 60_000;
  let firing = state.firing;
  let recent = state.recent;
  const transitions: Transition[] = [];
  for (const p of points) {
    const window = kind === "rapid_change" ? recent.filter((q) => q.t >= p.t - spanMs && q.t < p.t) : [];
    const m = measure(kind, params, hysteresis, p, window);
    if (!firing && m.breach) {
      firing = true;
      transitions.push({ type: "fire", at: p.t, value: m.value, reading: p.v, limit: limitOf(kind, params), observations: [...m.also, p.observationId], ...(m.from !== undefined ? { from: m.from } : {}) });
    } else if (firing && m.clear) {
      firing = false;
      transitions.push({ type: "rearm", at: p.t, observationId: p.observationId });
    }
    if (kind === "rapid_change") {
      window.push({ t: p.t, v: p.v, o: p.observationId });
      recent = window.length > MAX_RECENT ? window.slice(window.length - MAX_RECENT) : window;
    }
  }
  return { state: { firing, recent }, transitions };
}
