// Device readings from MQTT as the bridge sees them: the sender is the device (readings keep
// their order per device), the control id the message id (a redelivered message is stored
// once), the reply the MQTT outcome (the listener sends the PUBACK unless the message could not
// be stored), and batches go to the Worker's device ingest, POST /api/v1/devices/readings,
// whose per-reading answer (by index) is read back into per-message verdicts.
import type { Settlement } from "../../message-queue";
import type { ForwardTarget, ProtocolAdapter } from "../../protocol";
import { type MqttEnvelope, readMessage } from "./convention";

export const DEVICE_READINGS_PROTOCOL = "device-readings";
export const DEVICE_READINGS_PATH = "/api/v1/devices/readings";

interface ReadingResult {
  index?: unknown;
  status?: unknown;
  observation_id?: unknown;
  errors?: { path?: unknown; message?: unknown }[];
}

export const deviceReadingsTarget: ForwardTarget = {
  protocol: DEVICE_READINGS_PROTOCOL,
  path: DEVICE_READINGS_PATH,
  // The queue holds each reading as the Worker's DeviceReading JSON.
  body: (messages) => ({ readings: messages.map((m) => JSON.parse(m.raw) as unknown) }),
  readResults: (parsed, messages) => {
    const results = (parsed as { results?: unknown })?.results;
    if (!Array.isArray(results)) return null;
    return (results as ReadingResult[]).flatMap((r): Settlement[] => {
      const message = typeof r.index === "number" ? messages[r.index] : undefined;
      if (!message) return [];
      const observation = typeof r.observation_id === "string" ? r.observation_id : null;
      // "updated": the reading changed its stored Observation (a new version); stored all the same.
      if (r.status === "created" || r.status === "updated") return [{ id: message.id, status: "accepted", serverMessageId: observation }];
      if (r.status === "duplicate") return [{ id: message.id, status: "duplicate", serverMessageId: observation }];
      if (r.status !== "rejected") return [];
      const reasons = (r.errors ?? []).map((e) => `${String(e.path)}: ${String(e.message)}`).join("; ");
      return [{ id: message.id, status: "rejected", code: "READING_REJECTED", message: reasons || "rejected by the Worker" }];
    });
  },
};

export interface DeviceReadingsOptions {
  /** The organization the bridge serves: only its topics are forwarded. */
  orgId: string;
}

export function deviceReadingsAdapter(options: DeviceReadingsOptions): ProtocolAdapter<null> {
  return {
    protocol: DEVICE_READINGS_PROTOCOL,
    target: deviceReadingsTarget,
    read: (text) => {
      let envelope: MqttEnvelope;
      try {
        envelope = JSON.parse(text) as MqttEnvelope;
      } catch {
        envelope = { topic: "", payload: text };
      }
      const read = readMessage(envelope, options.orgId, new Date().toISOString());
      const key = { sender: read.deviceId, controlId: read.messageId, messageType: read.ok ? read.reading.metric : null };
      if (!read.ok) return { raw: text, key, header: null, refusal: { code: "MALFORMED_READING", reason: read.reason } };
      return { raw: JSON.stringify(read.reading), key, header: null };
    },
    // The outcome itself: the MQTT listener sends the PUBACK unless it is "error" (not stored).
    reply: (_header, outcome) => outcome,
  };
}
