// The inbound protocols this deployment accepts (part of the composition root): each
// standard's adapter, and the endpoints kept from before the protocol-neutral one. A new
// protocol is one adapter in standards/<name>/ listed here; features/inbound does not change.
import { InboundAdapters } from "../features/inbound/adapters";
import type { ProtocolAlias } from "../features/inbound/routes/messages";
import { HL7_PROTOCOL, hl7InboundAdapter } from "../standards/hl7v2/inbound";
import { x12InboundAdapter } from "../standards/x12/inbound";

export const inboundAdapters = new InboundAdapters([hl7InboundAdapter, x12InboundAdapter]);

/** POST /api/v1/hl7/messages predates /api/v1/inbound/{protocol}/messages and stays, answering the same. */
export const INBOUND_ALIASES: readonly ProtocolAlias[] = [{ path: "/v1/hl7/messages", protocol: HL7_PROTOCOL, summary: "Ingest a batch of HL7 v2 messages (the bridge's forwarding endpoint)" }];
