// The X12 inbound trigger: starts deployed pipelines for interchanges received on
// POST /api/v1/inbound/x12/messages (or forwarded by the bridge), filtered by set and sender.
import { z } from "zod";
import { defineNode } from "../../../features/pipelines";
import { X12_EVENT_TYPE } from "../event";
import { x12Text } from "./input";

export const x12InboundTrigger = defineNode({
  id: "x12.inbound_trigger",
  name: "X12 inbound trigger",
  category: "claims",
  description:
    "Starts the deployed pipeline for each inbound X12 interchange (POST /api/v1/inbound/x12/messages) that matches the filters, in arrival order per sender. The sender got its TA1/999 when the interchange was stored.",
  keywords: ["x12", "edi", "inbound", "trigger", "837", "835", "270", "clearinghouse", "claims"],
  inputs: [],
  outputs: [
    { name: "event", type: "trigger-event", description: "{type, attributes, payload: {message_id, control_id, sender, raw}}" },
    { name: "interchange", type: "x12-message", description: "The interchange text" },
  ],
  config: z
    .object({
      transaction_set: z.string().regex(/^\d{3}$/).optional().describe("ST01 of the first set, e.g. 837"),
      implementation: z.string().max(20).optional().describe("GS08, e.g. 005010X222A1 (837P)"),
      sender: z.string().max(15).optional().describe("ISA06, trimmed"),
    })
    .strict(),
  trigger: {
    kind: "event",
    index: (config) => ({ match: X12_EVENT_TYPE, attributes: Object.fromEntries(Object.entries(config).filter(([, v]) => typeof v === "string" && v !== "")) as Record<string, string> }),
  },
  documentation: {
    summary: "Every filter left out matches anything. Connect `interchange` to X12 to FHIR to store incoming claims or remittances.",
    example: { config: { transaction_set: "837", implementation: "005010X222A1" }, outputs: { interchange: "ISA*00*..." } },
  },
  run: async (ctx) => {
    const event = ctx.inputs.event ?? {};
    return { outputs: { event, interchange: x12Text(event) } };
  },
});
