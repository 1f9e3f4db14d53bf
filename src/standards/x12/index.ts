// The X12 EDI (HIPAA 5010) plug-in: pure functions, no I/O. A pipeline node is a thin
// wrapper over these: X12 Parse = readX12, X12 Validate = readX12 + acknowledge,
// X12 to FHIR = readX12 + x12ToFhir, FHIR to X12 = claimTo837 / eligibilityTo270 /
// statusTaskTo276 / preauthTo278 + envelope + writeX12. See docs/x12.md.

export { ACK_999_VERSION, ack999Body, acknowledge, ta1For } from "./ack";
export { DEFAULT_DELIMITERS, envelope, flatten, writeIsa, writeSegment, writeX12 } from "./build";
export type { EnvelopeParties, SetToWrite, WriteOptions } from "./build";
export { X12Error } from "./errors";
export type { X12ErrorCode, X12ErrorPlace } from "./errors";
export { setToFhir, x12ToFhir } from "./fhir/index";
export type { MapOptions, ReferenceResolver, SetBundle } from "./fhir/index";
export { bundleLookup } from "./fhir/from-fhir";
export type { Lookup } from "./fhir/from-fhir";
export { claimTo837 } from "./fhir/to-837";
export type { Envelope837 } from "./fhir/to-837";
export { eligibilityTo270, preauthTo278, statusTaskTo276 } from "./fhir/to-requests";
export { loopsToJson, segmentToJson } from "./json";
export type { JsonLoop, JsonSegment } from "./json";
export { isLoopNode, readLoops } from "./loops";
export type { LoopNode } from "./loops";
export { COMPONENT, comp, components, composite, el, REPETITION, repetitions, segment } from "./model";
export type { Delimiters, FunctionalGroup, Interchange, Segment, TransactionSet, X12Document } from "./model";
export { descendants, head, loop1, loops, seg1, segs } from "./query";
export { readX12 } from "./read";
export type { ReadGroup, ReadInterchange, ReadTransaction, X12Read } from "./read";
export type { SetId, SetTable } from "./table";
export { TABLES } from "./tables/index";
export { tokenize } from "./tokenize";
