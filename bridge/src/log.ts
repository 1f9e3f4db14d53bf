// One-line JSON logs on stderr, so an on-premises supervisor (systemd, Docker) can collect them.

export type LogLevel = "debug" | "info" | "warn" | "error";
const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export type Logger = Record<LogLevel, (event: string, fields?: Record<string, unknown>) => void>;

export function createLogger(minimum: LogLevel): Logger {
  const write = (level: LogLevel) => (event: string, fields: Record<string, unknown> = {}) => {
    if (RANK[level] < RANK[minimum]) return;
    process.stderr.write(`${JSON.stringify({ time: new Date().toISOString(), level, event, ...fields })}\n`);
  };
  return { debug: write("debug"), info: write("info"), warn: write("warn"), error: write("error") };
}
