// Deployment settings: the Worker's string variables and secrets, copied once per env object
// into a frozen object without a prototype. An unset setting is `undefined`, never a value
// inherited through Object.prototype: reading `env.X` directly would fall through to the
// prototype, which is how one polluted isolate once redirected every org's model calls (#20).
const NAMES = [
  "LIMIT_API_PER_MINUTE",
  "LIMIT_AGENT_CHAT_PER_MINUTE",
  "LIMIT_COPILOT_PER_MINUTE",
  "LIMIT_CONCURRENT_EXECUTIONS",
  "LIMIT_CONCURRENT_EXPORTS",
  "LIMIT_PUBLIC_PER_MINUTE",
  "LIMIT_WEBHOOK_PER_MINUTE",
  "LIMIT_EXPRESSION_STEPS",
  "MAX_BODY_BYTES",
  "LLM_BASE_URL",
  "LLM_API_KEY",
  "LLM_MODELS",
  "LLM_CONTEXT_WINDOW",
  "CONNECTOR_ENCRYPTION_KEY",
  "DEV_MODE",
  "EXPORT_TTL_HOURS",
  "MAX_RUN_STATE_CHARS",
  "OUTBOUND_ALLOW",
  "PUBLIC_BASE_URL",
  "DATA_SHARDS",
  "OPERATOR_TOKEN",
  "CORS_ORIGINS",
  "LOG_LEVEL",
  "MANAGEMENT_AUDIT",
  "SERVICE_PROFILE",
  "ORG_MOVE_SETTLE_MS",
  "CONSOLE_SESSION_IDLE_SECONDS",
  "CONSOLE_SESSION_MAX_SECONDS",
] as const;

export type SettingName = (typeof NAMES)[number];

export type Settings = Readonly<Partial<Record<SettingName, string>>>;

const cache = new WeakMap<object, Settings>();

function own(env: object, name: string): unknown {
  return Object.getOwnPropertyDescriptor(env, name)?.value;
}

/** An optional binding of `env` (e.g. Workers AI), own property only, for the same reason. */
export function optionalBinding<T extends object>(env: object, name: string): T | undefined {
  const value = own(env, name);
  return value && typeof value === "object" ? (value as T) : undefined;
}

/** The settings of `env` (the Worker env, or any object holding such variables, e.g. process.env). */
export function settingsOf(env: object): Settings {
  const cached = cache.get(env);
  if (cached) return cached;
  const out: Record<string, unknown> = Object.create(null);
  for (const name of NAMES) {
    const value = own(env, name);
    if (typeof value === "string") out[name] = value;
  }
  const settings = Object.freeze(out) as Settings;
  cache.set(env, settings);
  return settings;
}
