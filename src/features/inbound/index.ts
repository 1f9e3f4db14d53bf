// The inbound feature's public surface for plug-ins: the adapter a standard's message format implements, and its protocol aliases.
export type { AckOutcome, FieldPaths, InboundAdapter, InboundEventPayload, MessageFacts, MessageProblem, ProtocolAlias, Reading, StoredFacts } from "./adapter";
