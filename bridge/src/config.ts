// Bridge configuration from command-line flags, then environment variables, then defaults.
// One table lists every setting, so the flags, the env names and the README cannot drift apart.
// Listeners are a list (BRIDGE_LISTENERS) of transports, each with its own settings below.
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import type { FolderListenerOptions } from "./listeners/folder/listener";
import type { MllpListenerOptions } from "./listeners/mllp/listener";
import type { MqttListenerOptions } from "./listeners/mqtt/listener";
import { topicFilter } from "./protocols/device-readings/convention";
import type { LogLevel } from "./log";
import type { Hl7Options } from "./protocols/hl7/adapter";
import { AllowList, DEFAULT_ALLOW } from "./relay/allow-list";

/** HL7 v2 over MLLP. */
export interface MllpListenerConfig extends MllpListenerOptions {
  kind: "mllp";
  hl7: Hl7Options;
}

/** X12 files dropped into a folder. */
export interface X12FolderListenerConfig extends FolderListenerOptions {
  kind: "x12-folder";
}

/** Device readings from the site's MQTT broker. */
export interface MqttListenerConfig extends MqttListenerOptions {
  kind: "mqtt";
}

/** One entry per transport the bridge can listen on. */
export type ListenerConfig = MllpListenerConfig | X12FolderListenerConfig | MqttListenerConfig;

const LISTENER_KINDS: readonly ListenerConfig["kind"][] = ["mllp", "x12-folder", "mqtt"];

/** The outbound relay (relay/): on when a bridge credential is configured. */
export interface RelayConfig {
  /** ws(s)://…/api/v1/bridges/connect */
  url: string;
  credential: string;
  allow: string[];
  pingMs: number;
}

export interface BridgeConfig {
  workerUrl: string;
  apiKey: string;
  orgId: string;
  listeners: ListenerConfig[];
  dataDir: string;
  statusHost: string;
  statusPort: number;
  batchMaxMessages: number;
  batchMaxBytes: number;
  requestTimeoutMs: number;
  retryBaseMs: number;
  retryMaxMs: number;
  misconfiguredRetryMs: number;
  maxRetryAfterMs: number;
  retentionHours: number;
  logLevel: LogLevel;
  relay: RelayConfig | null;
}

interface Setting {
  flag: string;
  env: string;
  default?: string;
  help: string;
}

export const SETTINGS = {
  workerUrl: { flag: "worker-url", env: "WORKER_URL", help: "base URL of the Worker (required)" },
  apiKey: { flag: "api-key", env: "BRIDGE_API_KEY", help: "service API key (required; prefer the env var)" },
  orgId: { flag: "org-id", env: "BRIDGE_ORG_ID", help: "organization id sent as X-Organization-ID (required)" },
  listeners: { flag: "listeners", env: "BRIDGE_LISTENERS", default: "mllp", help: `comma-separated listeners to start: ${LISTENER_KINDS.join(", ")}` },
  listener: { flag: "listener", env: "MLLP_LISTENER", default: "mllp", help: "MLLP listener name sent as source.listener" },
  mllpHost: { flag: "mllp-host", env: "MLLP_HOST", default: "127.0.0.1", help: "MLLP bind address" },
  mllpPort: { flag: "mllp-port", env: "MLLP_PORT", default: "2575", help: "MLLP port (0 picks a free one)" },
  tlsCert: { flag: "tls-cert", env: "MLLP_TLS_CERT", help: "PEM certificate file: serve MLLP over TLS" },
  tlsKey: { flag: "tls-key", env: "MLLP_TLS_KEY", help: "PEM private key file for --tls-cert" },
  dataDir: { flag: "data-dir", env: "BRIDGE_DATA_DIR", default: "./bridge-data", help: "directory of the queue database" },
  encoding: { flag: "encoding", env: "MLLP_ENCODING", default: "utf-8", help: "utf-8, latin1 (iso-8859-1), ascii or utf16le" },
  // The Worker accepts messages up to 8 MiB (an MDM with an embedded PDF); larger frames would only be refused there.
  maxFrameBytes: { flag: "max-frame-bytes", env: "MLLP_MAX_FRAME_BYTES", default: String(8 * 1024 * 1024), help: "largest accepted frame; larger ones get AR" },
  alwaysAck: { flag: "always-ack", env: "MLLP_ALWAYS_ACK", default: "false", help: "send the commit ACK even when MSH-15 is NE or ER" },
  x12Listener: { flag: "x12-listener", env: "X12_LISTENER", default: "x12-folder", help: "X12 folder listener name sent as source.listener" },
  x12Inbox: { flag: "x12-inbox", env: "X12_INBOX_DIR", default: "./x12/inbox", help: "folder the x12-folder listener takes X12 files from" },
  x12Outbox: { flag: "x12-outbox", env: "X12_OUTBOX_DIR", default: "./x12/outbox", help: "folder it writes each file's 999/TA1 to (<file>.ack)" },
  x12Done: { flag: "x12-done", env: "X12_DONE_DIR", default: "./x12/done", help: "folder taken files are moved to" },
  x12PollMs: { flag: "x12-poll-ms", env: "X12_POLL_MS", default: "2000", help: "how often the inbox is read" },
  x12SettleMs: { flag: "x12-settle-ms", env: "X12_SETTLE_MS", default: "1000", help: "a file modified more recently waits (it may still be written)" },
  mqttListener: { flag: "mqtt-listener", env: "MQTT_LISTENER", default: "mqtt", help: "MQTT listener name sent as source.listener" },
  mqttUrl: { flag: "mqtt-url", env: "MQTT_URL", default: "mqtt://127.0.0.1:1883", help: "the site's broker: mqtt://host:port or mqtts://host:port" },
  mqttTopic: { flag: "mqtt-topic", env: "MQTT_TOPIC", help: "subscription filter (default rpm/<BRIDGE_ORG_ID>/devices/+/obs)" },
  mqttClientId: { flag: "mqtt-client-id", env: "MQTT_CLIENT_ID", help: "fixed client id of the persistent session (default cdis-bridge-<BRIDGE_ORG_ID>)" },
  mqttUsername: { flag: "mqtt-username", env: "MQTT_USERNAME", help: "broker user name" },
  mqttPassword: { flag: "mqtt-password", env: "MQTT_PASSWORD", help: "broker password (prefer the env var)" },
  mqttReconnectMs: { flag: "mqtt-reconnect-ms", env: "MQTT_RECONNECT_MS", default: "1000", help: "wait before reconnecting to the broker" },
  mqttConnectTimeoutMs: { flag: "mqtt-connect-timeout-ms", env: "MQTT_CONNECT_TIMEOUT_MS", default: "10000", help: "how long start-up waits for the first subscription" },
  statusHost: { flag: "status-host", env: "STATUS_HOST", default: "127.0.0.1", help: "status endpoint bind address" },
  statusPort: { flag: "status-port", env: "STATUS_PORT", default: "8575", help: "status endpoint port (0 picks a free one)" },
  batchMaxMessages: { flag: "batch-max-messages", env: "BATCH_MAX_MESSAGES", default: "100", help: "messages per forwarded batch" },
  batchMaxBytes: { flag: "batch-max-bytes", env: "BATCH_MAX_BYTES", default: String(1024 * 1024), help: "raw bytes per batch (a larger single message goes alone)" },
  requestTimeoutMs: { flag: "request-timeout-ms", env: "REQUEST_TIMEOUT_MS", default: "30000", help: "timeout of one POST to the Worker" },
  retryBaseMs: { flag: "retry-base-ms", env: "RETRY_BASE_MS", default: "500", help: "first retry delay" },
  retryMaxMs: { flag: "retry-max-ms", env: "RETRY_MAX_MS", default: "60000", help: "retry delay cap" },
  misconfiguredRetryMs: { flag: "misconfigured-retry-ms", env: "MISCONFIGURED_RETRY_MS", default: "300000", help: "retry delay after 401/403/4xx" },
  maxRetryAfterMs: { flag: "max-retry-after-ms", env: "MAX_RETRY_AFTER_MS", default: "3600000", help: "longest Retry-After honoured" },
  retentionHours: { flag: "retention-hours", env: "RETENTION_HOURS", default: "168", help: "how long forwarded messages are kept for duplicate detection" },
  bridgeCredential: { flag: "bridge-credential", env: "BRIDGE_CREDENTIAL", help: "the bridge's credential (cdisb_…, from POST /api/v1/bridges): turns on the outbound relay (prefer the env var)" },
  relayUrl: { flag: "relay-url", env: "RELAY_URL", help: "the relay's WebSocket URL (default: WORKER_URL as ws(s)://…/api/v1/bridges/connect)" },
  relayAllow: { flag: "relay-allow", env: "RELAY_ALLOW", default: DEFAULT_ALLOW.join(","), help: "comma-separated addresses the relay may deliver to: CIDRs, host[:port], file:///folder" },
  relayPingMs: { flag: "relay-ping-ms", env: "RELAY_PING_MS", default: "30000", help: "keep-alive ping interval of the relay connection; silent for two, it is remade" },
  logLevel: { flag: "log-level", env: "LOG_LEVEL", default: "info", help: "debug, info, warn or error" },
} satisfies Record<string, Setting>;

type Key = keyof typeof SETTINGS;

const ENCODINGS: Record<string, BufferEncoding> = {
  "utf-8": "utf8",
  utf8: "utf8",
  latin1: "latin1",
  "iso-8859-1": "latin1",
  ascii: "ascii",
  "us-ascii": "ascii",
  utf16le: "utf16le",
};

export class ConfigError extends Error {}

export function loadConfig(argv: string[], env: NodeJS.ProcessEnv): BridgeConfig {
  const { values } = parseArgs({
    args: argv,
    options: Object.fromEntries(Object.values(SETTINGS).map((s) => [s.flag, { type: "string" as const }])),
    strict: true,
  });
  const raw = (key: Key): string | undefined => {
    const s: Setting = SETTINGS[key];
    const value = values[s.flag] ?? env[s.env] ?? s.default;
    return typeof value === "string" && value !== "" ? value : undefined;
  };
  const required = (key: Key): string => {
    const value = raw(key);
    if (value === undefined) throw new ConfigError(`--${SETTINGS[key].flag} or ${SETTINGS[key].env} is required`);
    return value;
  };
  const int = (key: Key, min: number): number => {
    const value = Number(required(key));
    if (!Number.isInteger(value) || value < min) throw new ConfigError(`${SETTINGS[key].env} must be an integer >= ${min}`);
    return value;
  };
  const workerUrl = required("workerUrl");
  if (!/^https?:\/\//.test(workerUrl)) throw new ConfigError("WORKER_URL must be an http(s) URL");
  const encoding = ENCODINGS[required("encoding").toLowerCase()];
  if (!encoding) throw new ConfigError(`MLLP_ENCODING must be one of ${Object.keys(ENCODINGS).join(", ")}`);
  const logLevel = required("logLevel");
  if (!["debug", "info", "warn", "error"].includes(logLevel)) throw new ConfigError("LOG_LEVEL must be debug, info, warn or error");
  const certFile = raw("tlsCert");
  const keyFile = raw("tlsKey");
  if ((certFile === undefined) !== (keyFile === undefined)) throw new ConfigError("MLLP_TLS_CERT and MLLP_TLS_KEY go together");
  const mllp = (): MllpListenerConfig => ({
    kind: "mllp",
    name: required("listener"),
    host: required("mllpHost"),
    port: int("mllpPort", 0),
    tls: certFile && keyFile ? { cert: readFileSync(certFile), key: readFileSync(keyFile) } : undefined,
    encoding,
    maxFrameBytes: int("maxFrameBytes", 1024),
    hl7: { alwaysAck: required("alwaysAck") === "true" },
  });
  const x12Folder = (): X12FolderListenerConfig => ({
    kind: "x12-folder",
    name: required("x12Listener"),
    inbox: required("x12Inbox"),
    outbox: required("x12Outbox"),
    done: required("x12Done"),
    pollMs: int("x12PollMs", 10),
    settleMs: int("x12SettleMs", 0),
    encoding,
    // The Worker takes messages up to 8 MiB.
    maxFileBytes: int("maxFrameBytes", 1024),
  });
  const orgId = required("orgId");
  const mqttUrl = required("mqttUrl");
  const mqttConfig = (): MqttListenerConfig => {
    if (!/^mqtts?:\/\//.test(mqttUrl)) throw new ConfigError("MQTT_URL must be an mqtt:// or mqtts:// URL");
    const username = raw("mqttUsername");
    const password = raw("mqttPassword");
    return {
      kind: "mqtt",
      name: required("mqttListener"),
      url: mqttUrl,
      topic: raw("mqttTopic") ?? topicFilter(orgId),
      clientId: raw("mqttClientId") ?? `cdis-bridge-${orgId}`,
      ...(username ? { username } : {}),
      ...(password ? { password } : {}),
      reconnectMs: int("mqttReconnectMs", 10),
      connectTimeoutMs: int("mqttConnectTimeoutMs", 100),
    };
  };
  const build: Record<ListenerConfig["kind"], () => ListenerConfig> = { mllp, "x12-folder": x12Folder, mqtt: mqttConfig };
  return {
    workerUrl,
    apiKey: required("apiKey"),
    orgId,
    listeners: listenerKinds(required("listeners")).map((kind) => build[kind]()),
    dataDir: required("dataDir"),
    statusHost: required("statusHost"),
    statusPort: int("statusPort", 0),
    batchMaxMessages: int("batchMaxMessages", 1),
    batchMaxBytes: int("batchMaxBytes", 1024),
    requestTimeoutMs: int("requestTimeoutMs", 1),
    retryBaseMs: int("retryBaseMs", 1),
    retryMaxMs: int("retryMaxMs", 1),
    misconfiguredRetryMs: int("misconfiguredRetryMs", 1),
    maxRetryAfterMs: int("maxRetryAfterMs", 0),
    retentionHours: int("retentionHours", 1),
    logLevel: logLevel as LogLevel,
    relay: relayConfig(),
  };

  function relayConfig(): RelayConfig | null {
    const credential = raw("bridgeCredential");
    if (!credential) return null;
    if (!credential.startsWith("cdisb_")) throw new ConfigError("BRIDGE_CREDENTIAL must be a bridge credential (cdisb_…), not an API key");
    const url = raw("relayUrl") ?? `${workerUrl.replace(/^http/, "ws").replace(/\/+$/, "")}/api/v1/bridges/connect`;
    if (!/^wss?:\/\//.test(url)) throw new ConfigError("RELAY_URL must be a ws:// or wss:// URL");
    const allow = required("relayAllow").split(",").map((a) => a.trim()).filter((a) => a !== "");
    try {
      new AllowList(allow);
    } catch (e) {
      throw new ConfigError(`RELAY_ALLOW: ${e instanceof Error ? e.message : String(e)}`);
    }
    return { url, credential, allow, pingMs: int("relayPingMs", 10) };
  }
}

function listenerKinds(value: string): ListenerConfig["kind"][] {
  const kinds = value.split(",").map((k) => k.trim().toLowerCase());
  const unknown = kinds.filter((k) => !(LISTENER_KINDS as readonly string[]).includes(k));
  if (unknown.length > 0) throw new ConfigError(`BRIDGE_LISTENERS: unknown listener ${unknown.join(", ")} (known: ${LISTENER_KINDS.join(", ")})`);
  if (new Set(kinds).size !== kinds.length) throw new ConfigError("BRIDGE_LISTENERS names a listener twice");
  return kinds as ListenerConfig["kind"][];
}

/** The flag and env table, for --help. */
export function usage(): string {
  const lines = Object.values(SETTINGS).map(
    (s: Setting) => `  --${s.flag.padEnd(24)} ${s.env.padEnd(24)} ${s.help}${s.default ? ` (default ${s.default})` : ""}`,
  );
  return `Usage: npm run bridge -- [flags]\n\n  flag                       env var\n${lines.join("\n")}\n`;
}
