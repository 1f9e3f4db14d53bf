// Counts D1 round trips: every statement run on its own and every batch is one, on the database
// or on a session opened on it. An env whose
// `binding` (the control database, or an org's shard) counts goes wherever the code under test
// takes `env` from (for org data: `orgData(counting.env, placement)`).
import type { Env } from "../../src/platform/env";

export interface CountingEnv {
  env: Env;
  /** Round trips so far. */
  readonly count: number;
}

export function countingD1(env: Env, binding: string = "DB"): CountingEnv {
  const real = (env as unknown as Record<string, D1Database>)[binding]!;
  const unwrap = new WeakMap<object, D1PreparedStatement>();
  let count = 0;
  const statement = (s: D1PreparedStatement): D1PreparedStatement => {
    const wrapped = new Proxy(s, {
      get(target, prop) {
        const value = Reflect.get(target, prop, target);
        if (prop === "bind") return (...args: unknown[]) => statement(target.bind(...args));
        if (prop === "all" || prop === "raw" || prop === "run" || prop === "first") {
          return (...args: unknown[]) => {
            count++;
            return (value as (...a: unknown[]) => unknown).apply(target, args);
          };
        }
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    unwrap.set(wrapped, s);
    return wrapped;
  };
  // The database, and each session opened on it (requests run their shard queries in one).
  const counting = <T extends object>(base: T): T =>
    new Proxy(base, {
      get(target, prop) {
        if (prop === "prepare") return (sql: string) => statement((target as unknown as D1Database).prepare(sql));
        if (prop === "batch") {
          return (statements: D1PreparedStatement[]) => {
            count++;
            return (target as unknown as D1Database).batch(statements.map((s) => unwrap.get(s) ?? s));
          };
        }
        if (prop === "withSession") return (constraint?: string) => counting((target as unknown as D1Database).withSession(constraint));
        const value = Reflect.get(target, prop, target);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
  const db = counting(real);
  return {
    env: { ...env, [binding]: db } as Env,
    get count() {
      return count;
    },
  };
}
