// HL7 v2, declared once: its pipeline nodes, the mllp connector type, the inbound adapter (with
// the bridge's older endpoint as an alias), the field paths the copilot checks mappings with and
// ctx.hl7 of tenant code.
import type { Plugin } from "../plugin";
import { HL7_CODE_HELPERS } from "./code-helpers";
import { hl7FieldPaths } from "./field-paths";
import { HL7_PROTOCOL, hl7InboundAdapter } from "./inbound";
import { MLLP_CONNECTOR_TYPE } from "./mllp-connector";
import { HL7_NODES } from "./nodes";

export const HL7V2_PLUGIN = {
  name: "hl7v2",
  nodes: HL7_NODES,
  connectorTypes: [MLLP_CONNECTOR_TYPE],
  inbound: {
    adapter: hl7InboundAdapter,
    // POST /api/v1/hl7/messages predates /api/v1/inbound/{protocol}/messages and stays, answering the same.
    aliases: [{ path: "/v1/hl7/messages", protocol: HL7_PROTOCOL, summary: "Ingest a batch of HL7 v2 messages (the bridge's forwarding endpoint)" }],
  },
  copilot: { hl7: hl7FieldPaths },
  codeHelpers: HL7_CODE_HELPERS,
} as const satisfies Plugin;
