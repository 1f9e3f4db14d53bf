// X12 as the bridge sees it: the Worker's own adapter reads it (ISA06|GS02 the sender, ISA13
// the control id, ST01 the type) and builds the answer (999 per group, TA1 when asked for or
// rejected, a rejecting TA1 when the bridge could not store it, nothing for acknowledgments),
// and batches go to the Worker's X12 ingestion endpoint.
import type { X12Read } from "../../../../src/standards/x12/read";
import { x12InboundAdapter } from "../../../../src/standards/x12/inbound";
import type { ForwardTarget, ProtocolAdapter, ReplyOutcome } from "../../protocol";
import { hl7Target } from "../hl7/adapter";

export const X12_PROTOCOL = x12InboundAdapter.protocol;
export const X12_MESSAGES_PATH = `/api/v1/inbound/${X12_PROTOCOL}/messages`;

/** The same batch body as HL7's, to the X12 endpoint. */
export const x12Target: ForwardTarget = { protocol: X12_PROTOCOL, path: X12_MESSAGES_PATH, body: hl7Target.body };

const OUTCOME = { accepted: "accepted", rejected: "rejected", error: "errored" } as const satisfies Record<ReplyOutcome, string>;

export const x12Adapter: ProtocolAdapter<X12Read> = {
  protocol: X12_PROTOCOL,
  target: x12Target,
  read: (text) => {
    const r = x12InboundAdapter.read(text, undefined);
    const key = { sender: r.key?.sender ?? null, controlId: r.key?.controlId ?? null, messageType: r.facts.messageType };
    return r.problem ? { raw: r.raw, key, header: r.header, refusal: { code: r.problem.code, reason: r.problem.message } } : { raw: r.raw, key, header: r.header };
  },
  reply: (header, outcome) => (header ? x12InboundAdapter.acknowledge(header, OUTCOME[outcome]) || null : null),
};
