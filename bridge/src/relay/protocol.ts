// The relay's messages on the WebSocket to the service (the service's copy:
// src/features/bridges/protocol.ts). JSON text frames; the text "ping" is answered "pong".

export type FailureClass =
  | "refused"
  | "timeout"
  | "unreachable"
  | "server_error"
  | "throttled"
  | "nack"
  | "bridge_offline"
  | "configuration"
  | "client_error"
  | "gone"
  | "redirect"
  | "reject"
  | "not_allowed"
  | "invalid_response";

/** One attempt's result, as the service's destinations queue classifies it. */
export interface AttemptResult {
  ok: boolean;
  status?: number;
  ack_code?: string;
  response?: string;
  failure?: { class: FailureClass; message: string };
}

/** The longest answer excerpt reported. */
export const RESPONSE_EXCERPT_CHARS = 4_096;

export interface Transmit {
  type: "transmit";
  delivery_id: string;
  /** The service's destination: its MLLP messages share one kept-open connection. */
  destination_id?: string;
  /** The operator's reprocess round (0 before any): a higher one than stored is delivered again, even when the stored outcome is a success. */
  round?: number;
  address: string;
  body: string;
  content_type: string | null;
  headers: Record<string, string>;
  method: string | null;
  path: string | null;
  timeout_ms: number;
}

export type ServiceMessage = Transmit | { type: "ack"; delivery_id: string };

export type BridgeMessage = { type: "hello"; version: string; host: string } | { type: "outcome"; delivery_id: string; result: AttemptResult };

export const PING = "ping";
export const PONG = "pong";

/** A service message, or null for anything else. */
export function parseServiceMessage(text: string): ServiceMessage | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof value !== "object" || value === null) return null;
  const m = value as Record<string, unknown>;
  if (typeof m.delivery_id !== "string" || m.delivery_id === "") return null;
  if (m.type === "ack") return { type: "ack", delivery_id: m.delivery_id };
  if (m.type !== "transmit" || typeof m.address !== "string" || typeof m.body !== "string") return null;
  const headers: Record<string, string> = {};
  if (typeof m.headers === "object" && m.headers !== null) {
    for (const [k, v] of Object.entries(m.headers)) if (typeof v === "string") headers[k] = v;
  }
  return {
    type: "transmit",
    delivery_id: m.delivery_id,
    ...(typeof m.destination_id === "string" && m.destination_id ? { destination_id: m.destination_id } : {}),
    ...(typeof m.round === "number" && Number.isInteger(m.round) && m.round > 0 ? { round: m.round } : {}),
    address: m.address,
    body: m.body,
    content_type: typeof m.content_type === "string" ? m.content_type : null,
    headers,
    method: typeof m.method === "string" ? m.method : null,
    path: typeof m.path === "string" ? m.path : null,
    timeout_ms: typeof m.timeout_ms === "number" && m.timeout_ms > 0 ? m.timeout_ms : 30_000,
  };
}
