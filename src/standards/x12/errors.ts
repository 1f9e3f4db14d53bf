// Typed problems of the X12 modules. The tokenizer throws an X12Error only when it cannot
// go on (no usable ISA); everything else (envelopes, loops, elements) is collected as
// X12Error values so that one pass reports every problem and a 999/TA1 can answer them.

export type X12ErrorCode =
  // interchange (TA1)
  | "EMPTY" // no content at all
  | "NO_ISA" // the text does not start with an ISA, or junk stands between interchanges
  | "BAD_ISA" // the ISA is not 106 characters with its separators where they must be
  | "MISSING_IEA" // the interchange ends without an IEA
  | "IEA_CONTROL_MISMATCH" // IEA02 ≠ ISA13
  | "IEA_COUNT_MISMATCH" // IEA01 ≠ number of functional groups
  // functional group (AK9)
  | "MISSING_GE"
  | "GE_CONTROL_MISMATCH" // GE02 ≠ GS06
  | "GE_COUNT_MISMATCH" // GE01 ≠ number of transaction sets
  | "UNEXPECTED_ENVELOPE" // a segment outside the ISA/GS/ST nesting
  // transaction set (IK5)
  | "UNSUPPORTED_SET" // ST01/GS08 not one of the sets this module knows
  | "MISSING_SE"
  | "SE_CONTROL_MISMATCH" // SE02 ≠ ST02
  | "SE_COUNT_MISMATCH" // SE01 ≠ segments from ST to SE inclusive
  // segments (IK3)
  | "BAD_SEGMENT_ID" // not 2–3 upper-case letters or digits
  | "UNRECOGNIZED_SEGMENT" // a segment id the set does not use
  | "UNEXPECTED_SEGMENT" // a known segment where the loop table does not allow it
  | "MISSING_SEGMENT" // a required segment (or loop) is absent
  | "SEGMENT_REPEATED" // more occurrences than the table allows
  | "BAD_HL_PARENT" // HL02 names no earlier HL, or an HL of the wrong level
  // elements (IK4)
  | "MISSING_ELEMENT"
  | "ELEMENT_NOT_USED" // the TR3 marks this element not used, yet it has a value
  | "TOO_MANY_ELEMENTS"
  | "BAD_CODE" // not one of the code values the TR3 fixes here
  | "BAD_DATE" // a date element that is not a CCYYMMDD day
  | "TOO_MANY_REPETITIONS"
  // building
  | "DELIMITER_IN_DATA" // a value holds a character chosen as a delimiter
  | "BAD_BUILD_INPUT"; // a field the envelope needs is missing or too long

export interface X12ErrorPlace {
  /** 0-based position of the segment in the file (ISA of the first interchange = 0). */
  segmentIndex?: number;
  segmentId?: string;
  /** 1-based element position (ISA16 = 16); component position when the problem is in one. */
  element?: number;
  component?: number;
  /** TR3 loop id where the problem was found ("2300", "HEADER"). */
  loop?: string;
  /** 1-based position of the segment inside its transaction set (ST = 1), as 999 IK302 wants. */
  positionInSet?: number;
}

export class X12Error extends Error {
  override readonly name = "X12Error";
  readonly segmentIndex?: number;
  readonly segmentId?: string;
  readonly element?: number;
  readonly component?: number;
  readonly loop?: string;
  readonly positionInSet?: number;
  constructor(
    readonly code: X12ErrorCode,
    message: string,
    place: X12ErrorPlace = {},
  ) {
    super(message);
    Object.assign(this, place);
  }

  /** Plain JSON for node outputs and logs. */
  toJSON(): { code: X12ErrorCode; message: string } & X12ErrorPlace {
    const { code, message, segmentIndex, segmentId, element, component, loop, positionInSet } = this;
    return { code, message, segmentIndex, segmentId, element, component, loop, positionInSet };
  }
}

/** Where a problem was found, for messages: "segment 12 (CLM) element 6 in loop 2300". */
export function describePlace(p: X12ErrorPlace): string {
  const parts: string[] = [];
  if (p.segmentIndex !== undefined) parts.push(`segment ${p.segmentIndex}${p.segmentId ? ` (${p.segmentId})` : ""}`);
  else if (p.segmentId) parts.push(p.segmentId);
  if (p.element !== undefined) parts.push(`element ${p.element}${p.component !== undefined ? `-${p.component}` : ""}`);
  if (p.loop) parts.push(`in loop ${p.loop}`);
  return parts.join(" ");
}
