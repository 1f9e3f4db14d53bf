// One structured logger: one JSON line per event, `{time, level, msg, ...fields}`, at or above
// the deployment's LOG_LEVEL (default info). Fields are scalars only, so a resource, a message
// body or a request body cannot be handed to it whole; keys that name secrets are dropped and
// long strings cut, so neither credentials nor patient data reach the log (test/foundation/logs.test.ts).
import { settingsOf } from "../settings";

export const LOG_LEVELS = ["debug", "info", "warn", "error", "none"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
export type LogFields = Record<string, string | number | boolean | null | undefined>;

const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, none: 100 };
/** Field names that could carry a credential: never written, whatever their value. */
const SECRET_KEY = /authorization|api[_-]?key|secret|password|token|credential|cookie/i;
const MAX_STRING = 300;

export interface Logger {
  enabled(level: Exclude<LogLevel, "none">): boolean;
  debug(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
}

const loggers = new WeakMap<object, Logger>();

/** Where there is no env (a bare Hono app in a test): info level. */
const NO_ENV = {};

/** The logger of `env` (its LOG_LEVEL), made once per env object. */
export function logger(env: object | undefined): Logger {
  if (!env) return logger(NO_ENV);
  let log = loggers.get(env);
  if (!log) {
    log = makeLogger(levelOf(settingsOf(env).LOG_LEVEL));
    loggers.set(env, log);
  }
  return log;
}

function levelOf(value: string | undefined): LogLevel {
  return (LOG_LEVELS as readonly string[]).includes(value ?? "") ? (value as LogLevel) : "info";
}

/** Errors and warnings go to console.error / console.warn (their streams in Workers Logs), the rest to console.log. */
function toConsole(line: string, level: Exclude<LogLevel, "none">): void {
  if (level === "error") console.error(line);
  else if (level === "warn") console.warn(line);
  else console.log(line);
}

export function makeLogger(level: LogLevel, write: (line: string, level: Exclude<LogLevel, "none">) => void = toConsole): Logger {
  const at = (l: Exclude<LogLevel, "none">) => (msg: string, fields: LogFields = {}) => {
    if (RANK[l] < RANK[level]) return;
    write(JSON.stringify({ time: new Date().toISOString(), level: l, msg, ...clean(fields) }), l);
  };
  return { enabled: (l) => RANK[l] >= RANK[level], debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") };
}

function clean(fields: LogFields): LogFields {
  const out: LogFields = {};
  for (const [key, value] of Object.entries(fields)) {
    if (value === undefined || SECRET_KEY.test(key)) continue;
    out[key] = typeof value === "string" && value.length > MAX_STRING ? `${value.slice(0, MAX_STRING)}…` : value;
  }
  return out;
}
