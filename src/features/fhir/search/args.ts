// The bound arguments of one search statement (?1 is always the organization) and its bounded
// sets: the id sets it reads with a LIMIT, and the one-row statements that tell whether a cut lost
// any. Any number of values fits D1's 100 parameters.
import { type IdCondition, joinTerms, renderSubquery } from "./sql";

/** D1 binds at most 100 parameters per statement. */
export const D1_MAX_PARAMS = 100;
/** Parameters bound one by one; the rest travel in one JSON array bound last (?100). */
const DIRECT = D1_MAX_PARAMS - 1;

/** The greatest number of candidate rows one bounded set (see Args.bounded) may hold. */
export const MAX_CANDIDATES = 10_000;

/**
 * Collects a statement's bound arguments (?1 is always the organization) and its bounded sets.
 * Any number of values fits D1's 100 parameters: past the 98th, a value is read from one JSON
 * array bound as ?100 (json_extract of a parameter is a constant the planner can seek with).
 */
export class Args {
  private readonly direct: unknown[];
  private readonly spilled: unknown[] = [];
  /** Id sets read with a LIMIT (see bounded), checked by checkSql. */
  readonly sets: string[] = [];
  /** `bounding` false: sets are read whole (conditional matches must never miss one). */
  constructor(
    orgId: string,
    readonly bounding = true,
  ) {
    this.direct = [orgId];
  }
  add(v: unknown): string {
    if (this.direct.length < DIRECT) {
      this.direct.push(v);
      return `?${this.direct.length}`;
    }
    this.spilled.push(v);
    return `json_extract(?${D1_MAX_PARAMS}, '$[${this.spilled.length - 1}]')`;
  }
  /** The values to bind, in placeholder order. */
  get values(): unknown[] {
    if (!this.spilled.length) return [...this.direct];
    const pad = Array.from({ length: DIRECT - this.direct.length }, () => null);
    return [...this.direct, ...pad, JSON.stringify(this.spilled)];
  }
  /**
   * The ids of `c` as a set cut at MAX_CANDIDATES + 1 rows, so whatever reads it reads a bounded
   * number of index rows; a condition that reads more rows than it matches (`window`) is cut on
   * the rows it reads. checkSql tells whether a cut lost any. `select`: what the set's rows
   * select instead of the ids ("1" where only their number matters).
   */
  bounded(c: IdCondition, select?: string): string {
    if (!this.bounding) return renderSubquery(c.ids, select);
    const cut = ` LIMIT ${MAX_CANDIDATES + 1}`;
    if (!c.window) {
      this.sets.push(renderSubquery(c.ids, "1"));
      return `${renderSubquery(c.ids, select)}${cut}`;
    }
    const { rows, pred } = c.window;
    this.sets.push(renderSubquery(rows, "1"));
    return `SELECT ${select ?? `w.${c.ids.select}`} FROM (${renderSubquery(rows)}${cut}) w WHERE ${pred}`;
  }
  /**
   * A statement (taking these values) answering `over`: whether a bounded set holds more than
   * MAX_CANDIDATES rows (results read through it may be incomplete). Undefined: no sets.
   */
  checkSql(): string | undefined {
    if (!this.sets.length) return undefined;
    return this.answering(`(${joinTerms(this.sets.map(beyondCandidates), "OR")}) AS over`);
  }
  /** A statement (taking these values) answering `full`: whether `window` ("SELECT 1 FROM ...") holds more than MAX_CANDIDATES rows. */
  fullSql(window: string): string {
    return this.answering(`${beyondCandidates(window)} AS full`);
  }
  /** A one-row statement that takes every value bound to the query (naming the last placeholder does). */
  private answering(columns: string): string {
    const last = `?${this.values.length}`;
    return `SELECT ${columns} WHERE ${last} IS ${last}`;
  }
}

const beyondCandidates = (set: string) => `(SELECT COUNT(*) FROM (${set} LIMIT ${MAX_CANDIDATES + 1})) > ${MAX_CANDIDATES}`;
