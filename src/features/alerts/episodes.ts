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

/** The window's lowest and highest readings (the baselines of a rise and of a drop). */
interface Extremes {
  low?: RecentPoint;
  high?: RecentPoint;
}

function change(direction: Direction, p: Point, window: Extremes): { amount: number; baseline?: RecentPoint } {
  const rise = window.low ? { amount: p.v - window.low.v, baseline: window.low } : { amount: 0 };
  const drop = window.high ? { amount: window.high.v - p.v, baseline: window.high } : { amount: 0 };
  if (direction === "rise") return rise;
  if (direction === "drop") return drop;
  return drop.amount > rise.amount ? drop : rise;
}

function measure(kind: AlertKind, params: RuleParams, hysteresis: number, p: Point, window: Extremes): Measure {
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

/** A queue of increasing indices, read from a moving head and trimmed from the tail. */
class IndexQueue {
  private readonly items: number[] = [];
  private start = 0;

  head(): number | undefined {
    return this.start < this.items.length ? this.items[this.start] : undefined;
  }

  dropBefore(index: number): void {
    while (this.start < this.items.length && (this.items[this.start] as number) < index) this.start++;
  }

  /** Drops tail entries `dominated` says the new one makes useless, then appends it. */
  pushDropping(index: number, dominated: (j: number) => boolean): void {
    while (this.items.length > this.start && dominated(this.items[this.items.length - 1] as number)) this.items.pop();
    this.items.push(index);
  }
}

/**
 * The readings of the last `spanMs` before each new reading, with their lowest and highest kept in
 * monotonic queues: a year of one-minute readings is one pass, whatever the span.
 */
class SlidingWindow {
  private readonly points: RecentPoint[];
  private first = 0;
  private added = 0;
  /** Monotonic queues of indices into `points` (increasing values / decreasing values), each read from its head. */
  private readonly lows = new IndexQueue();
  private readonly highs = new IndexQueue();

  constructor(
    recent: RecentPoint[],
    private readonly spanMs: number,
  ) {
    this.points = [...recent];
  }

  /** The extremes of the readings in [t − span, t), then `p` joins the window. */
  extremesBefore(p: Point): Extremes {
    while (this.added < this.points.length && (this.points[this.added] as RecentPoint).t < p.t) this.push(this.added++);
    while (this.first < this.added && (this.points[this.first] as RecentPoint).t < p.t - this.spanMs) this.first++;
    this.lows.dropBefore(this.first);
    this.highs.dropBefore(this.first);
    const low = this.lows.head() === undefined ? undefined : this.points[this.lows.head() as number];
    const high = this.highs.head() === undefined ? undefined : this.points[this.highs.head() as number];
    this.points.push({ t: p.t, v: p.v, o: p.observationId });
    return { ...(low ? { low } : {}), ...(high ? { high } : {}) };
  }

  private push(i: number): void {
    const value = (j: number) => (this.points[j] as RecentPoint).v;
    const v = value(i);
    this.lows.pushDropping(i, (j) => value(j) >= v);
    this.highs.pushDropping(i, (j) => value(j) <= v);
  }

  /** What the next call needs: the readings within the span of the latest (at most MAX_RECENT). */
  remaining(): RecentPoint[] {
    const last = this.points[this.points.length - 1];
    if (!last) return [];
    const kept = this.points.filter((q) => q.t >= last.t - this.spanMs);
    return kept.length > MAX_RECENT ? kept.slice(kept.length - MAX_RECENT) : kept;
  }
}

const limitOf = (kind: AlertKind, params: RuleParams) => (kind === "rapid_change" ? (params.amount ?? 0) : (params.threshold ?? 0));

/** Runs `points` (sorted by time) through a value rule from `state`; answers the new state and what happened. */
export function stepEpisodes(kind: AlertKind, params: RuleParams, state: EpisodeState, points: readonly Point[]): { state: EpisodeState; transitions: Transition[] } {
  const hysteresis = effectiveHysteresis(kind, params);
  const spanMs = (params.span_minutes ?? 0) * 60_000;
  let firing = state.firing;
  const window = kind === "rapid_change" ? new SlidingWindow(state.recent, spanMs) : undefined;
  const transitions: Transition[] = [];
  for (const p of points) {
    const m = measure(kind, params, hysteresis, p, window ? window.extremesBefore(p) : {});
    if (!firing && m.breach) {
      firing = true;
      transitions.push({ type: "fire", at: p.t, value: m.value, reading: p.v, limit: limitOf(kind, params), observations: [...m.also, p.observationId], ...(m.from !== undefined ? { from: m.from } : {}) });
    } else if (firing && m.clear) {
      firing = false;
      transitions.push({ type: "rearm", at: p.t, observationId: p.observationId });
    }
  }
  return { state: { firing, recent: window ? window.remaining() : state.recent }, transitions };
}

/** An episode the stream already had (an alert of the rule for the stream): its start and end, ms; end null while open. */
export interface KnownEpisode {
  start: number;
  end: number | null;
}

const covers = (known: readonly KnownEpisode[], t: number) => known.some((e) => e.start <= t && (e.end === null || t <= e.end));

/**
 * Late readings of a value rule (older than its stream's latest, which the in-order readings
 * already took through `stepEpisodes`), in time order among the episodes the stream had. A late
 * reading inside a known episode belongs to it (no second alert for one excursion). Outside every
 * one, a breach opens a late episode of its own, which ends at the first late reading back inside
 * the limit by the margin, on reaching a known episode, or at its last late reading: the stream's
 * in-order readings after it were evaluated without it, so a late episode never holds the live
 * state open, and a late reading never ends, splits or re-opens a known episode. Rapid change
 * compares a late reading with the readings of its span the rule holds (`recent`: those within the
 * span of the stream's latest reading) and the other late ones; they all join the window for the
 * readings still to come.
 */
export function stepLate(kind: AlertKind, params: RuleParams, recent: readonly RecentPoint[], late: readonly Point[], known: readonly KnownEpisode[]): { transitions: Transition[]; recent: RecentPoint[] } {
  const hysteresis = effectiveHysteresis(kind, params);
  const spanMs = (params.span_minutes ?? 0) * 60_000;
  const lateIds = new Set(late.map((p) => `${p.t}\n${p.observationId}`));
  const seen = new Set<string>();
  // Every point in time order (the window reads them all; only the late ones are measured).
  const merged = [...recent.map((q) => ({ t: q.t, v: q.v, observationId: q.o })), ...late]
    .filter((p) => {
      const key = `${p.t}\n${p.observationId}`;
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    })
    .sort((a, b) => a.t - b.t);
  const window = kind === "rapid_change" ? new SlidingWindow([], spanMs) : undefined;
  const transitions: Transition[] = [];
  let open: Point | undefined;
  let last: Point | undefined;
  const close = () => {
    if (open && last) transitions.push({ type: "rearm", at: last.t, observationId: last.observationId });
    open = undefined;
  };
  for (const p of merged) {
    const extremes = window ? window.extremesBefore(p) : {};
    if (!lateIds.has(`${p.t}\n${p.observationId}`)) continue;
    if (covers(known, p.t)) {
      close();
      continue;
    }
    const m = measure(kind, params, hysteresis, p, extremes);
    if (!open && m.breach) {
      open = p;
      transitions.push({ type: "fire", at: p.t, value: m.value, reading: p.v, limit: limitOf(kind, params), observations: [...m.also, p.observationId], ...(m.from !== undefined ? { from: m.from } : {}) });
    } else if (open && m.clear) {
      transitions.push({ type: "rearm", at: p.t, observationId: p.observationId });
      open = undefined;
    }
    last = p;
  }
  close();
  const latest = recent.at(-1)?.t ?? Number.NEGATIVE_INFINITY;
  const kept = kind === "rapid_change" ? merged.filter((q) => q.t >= latest - spanMs).map((q) => ({ t: q.t, v: q.v, o: q.observationId })) : [...recent];
  return { transitions, recent: kept.length > MAX_RECENT ? kept.slice(kept.length - MAX_RECENT) : kept };
}
