// The 999/TA1 a node or the inbound adapter answers a read file with. Its interchange
// control number is the received ISA13 unless the caller gives one: an answer to the same
// file is then the same answer, and a resend is acknowledged identically.
import { acknowledge } from "../ack";
import { writeX12 } from "../build";
import { el } from "../model";
import type { X12Read } from "../read";

/** The received interchange's control number as the answer's, or 1 when it is not a number. */
export function echoedControl(read: X12Read): number {
  const n = Number.parseInt(el(read.interchanges[0]?.interchange.isa, 13), 10);
  return Number.isInteger(n) && n >= 1 && n <= 999_999_999 ? n : 1;
}

export interface AcknowledgementOptions {
  control?: number;
  alwaysTa1?: boolean;
  /** Written after each segment terminator. */
  separator?: string;
}

export function acknowledgementText(read: X12Read, options: AcknowledgementOptions = {}): string {
  const interchanges = acknowledge(read, { control: options.control ?? echoedControl(read), ...(options.alwaysTa1 ? { alwaysTa1: true } : {}) });
  return writeX12({ interchanges }, options.separator ? { separator: options.separator } : {});
}
