// The relay's messages on the bridge's WebSocket, JSON text frames (bridge/src/relay/protocol.ts
// is the bridge's copy). Service → bridge: `transmit` (deliver this), `ack` (your outcome is
// recorded, forget it). Bridge → service: `hello` (who I am), `outcome` (what a delivery got).
// The text frame "ping" is answered "pong" by the runtime without waking the object.
import { z } from "zod";

export const PING = "ping";
export const PONG = "pong";

/** What the bridge is asked to deliver: one attempt of one queued message. */
export interface TransmitMessage {
  type: "transmit";
  /** The message's delivery id: the bridge delivers each id once and answers repeats with its stored outcome. */
  delivery_id: string;
  /** The destination it is of: the bridge keeps one MLLP connection per destination. */
  destination_id: string;
  /** The message's reprocess round: the bridge delivers an id again when its round is higher than the one it stored. */
  round: number;
  /** mllp://host:port, http(s)://…, file:///dir */
  address: string;
  body: string;
  content_type: string | null;
  headers: Record<string, string>;
  method: string | null;
  path: string | null;
  timeout_ms: number;
}

export interface AckMessage {
  type: "ack";
  delivery_id: string;
}

const FAILURE_CLASSES = [
  "refused",
  "timeout",
  "unreachable",
  "server_error",
  "throttled",
  "nack",
  "bridge_offline",
  "configuration",
  "client_error",
  "gone",
  "redirect",
  "reject",
  "not_allowed",
  "invalid_response",
] as const;

const AttemptResultSchema = z.object({
  ok: z.boolean(),
  status: z.number().int().optional(),
  ack_code: z.string().max(10).optional(),
  response: z.string().optional(),
  failure: z.object({ class: z.enum(FAILURE_CLASSES), message: z.string() }).optional(),
});

export const BridgeMessage = z.discriminatedUnion("type", [
  z.object({ type: z.literal("hello"), version: z.string().max(100), host: z.string().max(255) }),
  z.object({ type: z.literal("outcome"), delivery_id: z.string().min(1).max(200), result: AttemptResultSchema }),
]);
export type BridgeMessage = z.infer<typeof BridgeMessage>;
