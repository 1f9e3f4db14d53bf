// In-process counters behind GET /status: totals since start, a one-minute throughput window,
// the last error and what each protocol's forwarding lane last learned about the Worker.

/** Counts events in one-second buckets over the last minute. */
class MinuteWindow {
  private readonly buckets = new Array<number>(60).fill(0);
  private readonly stamps = new Array<number>(60).fill(0);

  add(count: number, now = Date.now()): void {
    const second = Math.floor(now / 1000);
    const slot = second % 60;
    if (this.stamps[slot] !== second) {
      this.stamps[slot] = second;
      this.buckets[slot] = 0;
    }
    this.buckets[slot] = (this.buckets[slot] ?? 0) + count;
  }

  total(now = Date.now()): number {
    const second = Math.floor(now / 1000);
    let sum = 0;
    for (let i = 0; i < 60; i++) if (second - (this.stamps[i] ?? 0) < 60) sum += this.buckets[i] ?? 0;
    return sum;
  }
}

export type Counter = "received" | "duplicates" | "forwarded" | "rejected" | "nakked";

export interface WorkerState {
  /** null until the first attempt. */
  reachable: boolean | null;
  lastStatus: number | null;
  lastSuccessAt: string | null;
  consecutiveFailures: number;
  nextAttemptAt: string | null;
}

function neverTried(): WorkerState {
  return { reachable: null, lastStatus: null, lastSuccessAt: null, consecutiveFailures: 0, nextAttemptAt: null };
}

export class Metrics {
  private readonly startedAt = new Date();
  private readonly counters: Record<Counter, number> = {
    received: 0,
    duplicates: 0,
    forwarded: 0,
    rejected: 0,
    nakked: 0,
  };
  private readonly receivedWindow = new MinuteWindow();
  private readonly forwardedWindow = new MinuteWindow();
  private lastError: { at: string; message: string } | null = null;
  private readonly lanes = new Map<string, WorkerState>();

  /** The Worker as one protocol's forwarding lane sees it (created on first use). */
  workerFor(protocol: string): WorkerState {
    let state = this.lanes.get(protocol);
    if (!state) {
      state = neverTried();
      this.lanes.set(protocol, state);
    }
    return state;
  }

  /** The lane doing worst (most consecutive failures), with the latest success of any lane. */
  get worker(): WorkerState {
    const states = [...this.lanes.values()];
    const worst = states.reduce<WorkerState | null>((w, s) => (w && w.consecutiveFailures >= s.consecutiveFailures ? w : s), null);
    const successes = states.flatMap((s) => (s.lastSuccessAt ? [s.lastSuccessAt] : [])).sort();
    const base = worst ?? neverTried();
    return { ...base, lastSuccessAt: successes.at(-1) ?? null };
  }

  count(counter: Counter, n = 1): void {
    this.counters[counter] += n;
    if (counter === "received") this.receivedWindow.add(n);
    if (counter === "forwarded") this.forwardedWindow.add(n);
  }

  error(message: string): void {
    this.lastError = { at: new Date().toISOString(), message };
  }

  snapshot() {
    return {
      started_at: this.startedAt.toISOString(),
      counters: { ...this.counters },
      last_minute: { received: this.receivedWindow.total(), forwarded: this.forwardedWindow.total() },
      last_error: this.lastError,
      worker: this.worker,
      lanes: Object.fromEntries([...this.lanes].map(([protocol, state]) => [protocol, { ...state }])),
    };
  }
}
