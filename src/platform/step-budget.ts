// A budget of evaluation steps for expressions an organization wrote (JSONata, FHIRPath).
// Steps, not milliseconds: inside workerd the clock stands still while JavaScript runs (it moves
// only at I/O), so a time box read from Date.now() never fires in a loop that does no I/O, and a
// count is the same on a loaded machine as on a quiet one. An evaluator counts one step per
// evaluation and one per item of every sequence it builds, so a huge range costs its size.
import { AsyncLocalStorage } from "node:async_hooks";

export const BUDGET_EXCEEDED = "EXPRESSION_BUDGET_EXCEEDED";

/** Steps one evaluation may take unless its organization's limits say otherwise (under a second of CPU on a 2-core development machine). */
export const DEFAULT_EXPRESSION_STEPS = 2_000_000;
/** The most an organization may be given: about twenty seconds of CPU on the same machine. */
export const MAX_EXPRESSION_STEPS = 50_000_000;
/** An async evaluator hands the thread back this often, so other requests (any organization's) are served meanwhile. */
const YIELD_EVERY_STEPS = 20_000;

export class ExpressionBudgetExceeded extends Error {
  readonly code = BUDGET_EXCEEDED;
  constructor(
    readonly limit: number,
    readonly unit: string,
  ) {
    super(`The expression exceeded its budget of ${limit.toLocaleString("en-US")} ${unit}`);
    this.name = "ExpressionBudgetExceeded";
  }
}

export class StepBudget {
  private used = 0;
  private sinceYield = 0;
  constructor(readonly limit: number) {}

  get spent(): number {
    return this.used;
  }

  /** The error for a spent budget (for an evaluator that wraps what its hooks threw). */
  exceeded(): ExpressionBudgetExceeded | undefined {
    return this.used > this.limit ? new ExpressionBudgetExceeded(this.limit, "evaluation steps") : undefined;
  }

  /** Counts `n` steps; throws ExpressionBudgetExceeded once more than the limit were taken. */
  spend(n = 1): void {
    this.used += n;
    this.sinceYield += n;
    const exceeded = this.exceeded();
    if (exceeded) throw exceeded;
  }

  /** For async evaluators: after every YIELD_EVERY_STEPS steps, resolves only after a macrotask, so I/O and other requests run. */
  pause(): Promise<void> | undefined {
    if (this.sinceYield < YIELD_EVERY_STEPS) return undefined;
    this.sinceYield = 0;
    return new Promise((resolve) => setTimeout(resolve, 0));
  }
}

/** Where the step limit of the running work comes from (an organization's limits, read when first needed). */
type LimitSource = () => Promise<number>;

interface Scope {
  limit: LimitSource;
  budget?: Promise<StepBudget>;
}

const scopes = new AsyncLocalStorage<Scope>();

/**
 * Runs `fn` with every evaluation inside it drawing on one budget of `limit` steps (the pipeline
 * engine wraps each node's run, so a filter's per-item predicates share the node's budget). Work
 * already inside a scope stays in it: a for-each body's nodes spend their for-each node's budget.
 */
export function withStepLimit<T>(limit: LimitSource, fn: () => T): T {
  return scopes.getStore() ? fn() : scopes.run({ limit }, fn);
}

/** The budget an evaluation spends: its scope's, else a fresh one of the default size. */
export function stepBudget(): Promise<StepBudget> {
  const scope = scopes.getStore();
  if (!scope) return Promise.resolve(new StepBudget(DEFAULT_EXPRESSION_STEPS));
  scope.budget ??= scope.limit().then((limit) => new StepBudget(limit));
  return scope.budget;
}
