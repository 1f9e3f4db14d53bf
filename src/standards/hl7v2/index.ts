// HL7 v2: parser, encoder, ACK builder, the HL7-to-FHIR converter and the FHIR-to-HL7
// encoder (pure modules, usable from the Worker, pipeline nodes and the MLLP bridge alike).

export { type AckCode, type AckError, type AckErrorLocation, type AckOptions, type AckSource, buildAck, HL7_ERROR_CODES } from "./ack";
export {
  type ConversionResult,
  type ConvertOptions,
  convertToFhir,
  convertToFhirWithReport,
  isSupportedMessage,
  type MessageFamily,
} from "./convert/index";
export { addMinutes, parseHl7DateTime, toFhirDate, toFhirDateTime, toFhirInstant, toFhirTime } from "./datetime";
export { Hl7ConversionError, type Hl7ConversionErrorCode, Hl7EncodingError, type Hl7EncodingErrorCode, Hl7ParseError, type Hl7ParseErrorCode } from "./errors";
export {
  convertFromFhir,
  DEFAULT_VERSION,
  ENCODABLE_MESSAGE_TYPES,
  type EncodableMessageType,
  type FromFhirOptions,
  type FromFhirResult,
  type Hd,
  type HdInput,
  type MshOptions,
  VERSIONS,
} from "./from-fhir/index";
export { DEFAULT_DELIMITERS, type Delimiters, encodingCharacters, escapeValue, unescapeValue } from "./escape";
export { type EncodeOptions, encodeSegments, type Hl7Path, Hl7Message, Hl7Segment, Hl7Value, parsePath, parseValueAddress, type ValueAddress } from "./message";
export { type Hl7Batch, type Hl7BatchGroup, type ParseOptions, parseBatch, parseDelimiters, parseMessage, parseMessages, readMsh, splitSegments } from "./parse";
export { uuidV5 } from "../../platform/name-uuid";
