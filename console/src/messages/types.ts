// The inbound messages API's shapes (GET /api/hl7/messages, /api/hl7/messages/<id>).
export interface MessageSummary {
  id: string;
  protocol: string;
  status: "received" | "processed" | "unrouted" | "failed" | "rejected";
  sender: string | null;
  control_id: string | null;
  message_type: string | null;
  trigger_event: string | null;
  version: string | null;
  received_at: string;
  updated_at: string;
  attempts: number;
  error: { code: string; message: string; at?: string } | null;
}

export interface MessageDetail extends MessageSummary {
  raw: string;
  source: Record<string, string> | null;
  executions: string[];
  resources: string[];
}

export const MESSAGE_STATUSES = ["received", "processed", "unrouted", "failed", "rejected"] as const;
