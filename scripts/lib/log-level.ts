// LOG_LEVEL of the local runtimes: how much `npm start` (Miniflare) and `npm run dev` (wrangler
// dev) print. At `info` each request gets one line (method, path, status, ms); `warn`, `error`
// and `none` drop those lines, and with them Miniflare's per-request log call.
export const LOG_LEVELS = ["debug", "info", "warn", "error", "none"] as const;
export type LogLevelName = (typeof LOG_LEVELS)[number];

/** The level `value` names (default info, also when empty); an unknown name is refused, not silently ignored. */
export function parseLogLevel(value: string | undefined): LogLevelName {
  const name = (value || "info").trim().toLowerCase();
  if ((LOG_LEVELS as readonly string[]).includes(name)) return name as LogLevelName;
  throw new Error(`LOG_LEVEL must be one of ${LOG_LEVELS.join(", ")} (got "${value}")`);
}
