// The inbound messages API's shapes (GET /api/hl7/messages, /api/hl7/messages/<id>), as the
// OpenAPI document (and so the generated client) declares them.
import type { components } from "../../../clients/typescript/api.generated";

export type MessageSummary = components["schemas"]["InboundMessageSummary"];
export type MessageDetail = components["schemas"]["InboundMessage"];

export const MESSAGE_STATUSES = ["received", "processed", "unrouted", "failed", "rejected"] as const;
