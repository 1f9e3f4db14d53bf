// Typed errors of the HL7 v2 modules. Parsing and conversion never throw anything
// else for bad input: callers (MLLP bridge, pipeline nodes) switch on `code`.

export type Hl7ParseErrorCode =
  | "EMPTY" // no content at all
  | "NO_MSH" // the text does not start with an MSH (or FHS/BHS) header
  | "BAD_DELIMITERS" // MSH-1/MSH-2 unusable: missing, duplicated or alphanumeric characters
  | "TRUNCATED" // the header ends before the fields every message needs (MSH-9, MSH-10, MSH-12)
  | "BAD_SEGMENT" // a segment whose name is not three upper-case letters or digits
  | "BAD_BATCH"; // FHS/BHS/BTS/FTS out of order

export class Hl7ParseError extends Error {
  override readonly name = "Hl7ParseError";
  constructor(
    readonly code: Hl7ParseErrorCode,
    message: string,
    /** 1-based segment (line) number where the problem was found, when known. */
    readonly segment?: number,
  ) {
    super(message);
  }
}

export type Hl7ConversionErrorCode =
  | "UNSUPPORTED_MESSAGE_TYPE" // not one of ADT, ORU, ORM, SIU, MDM, DFT (or an event of those not handled)
  | "MISSING_SEGMENT" // a segment the message family cannot do without (PID, SCH, TXA, FT1...)
  | "INVALID_MESSAGE"; // structurally unusable for conversion (no control id...)

export class Hl7ConversionError extends Error {
  override readonly name = "Hl7ConversionError";
  constructor(
    readonly code: Hl7ConversionErrorCode,
    message: string,
    readonly messageType?: string,
  ) {
    super(message);
  }
}

export type Hl7EncodingErrorCode =
  | "UNSUPPORTED_MESSAGE_TYPE" // not one of the message types the encoder builds
  | "INVALID_INPUT" // not a FHIR resource or Bundle, or resources of another patient mixed in
  | "MISSING_RESOURCE" // a resource the message cannot do without (no Patient for ADT...)
  | "MISSING_VALUE"; // an element a required field is written from (Patient.identifier for PID-3...)

/** FHIR → HL7 v2: what is missing or wrong in the input, naming the FHIR resource or element. */
export class Hl7EncodingError extends Error {
  override readonly name = "Hl7EncodingError";
  constructor(
    readonly code: Hl7EncodingErrorCode,
    message: string,
    /** The FHIR resource type or element path the problem is about ("Patient", "Patient.identifier"). */
    readonly path?: string,
  ) {
    super(message);
  }
}
