// State of one encoding: the input, the version and delimiters being written, the
// system names, and the warnings (what the message could not carry).

import type { Delimiters } from "../escape";
import type { Hl7Segment } from "../message";
import type { FhirInput } from "./input";
import type { SystemNames } from "./systems";
import { type Fields, segment } from "./writer";

/** "2.5.1" → [2, 5, 1]. */
function versionParts(v: string): number[] {
  return v.split(".").map((p) => Number.parseInt(p, 10) || 0);
}

export class EncodeContext {
  readonly warnings: string[] = [];
  private readonly versionNumbers: number[];

  constructor(
    readonly input: FhirInput,
    readonly systems: SystemNames,
    readonly delimiters: Delimiters,
    readonly version: string,
  ) {
    this.versionNumbers = versionParts(version);
  }

  /** Whether the version written is this one or later (fields that exist only from then on). */
  atLeast(version: string): boolean {
    const want = versionParts(version);
    for (let i = 0; i < Math.max(want.length, this.versionNumbers.length); i++) {
      const a = this.versionNumbers[i] ?? 0;
      const b = want[i] ?? 0;
      if (a !== b) return a > b;
    }
    return true;
  }

  segment(name: string, fields: Fields): Hl7Segment {
    return segment(name, fields, this.delimiters);
  }

  warn(text: string): void {
    if (!this.warnings.includes(text)) this.warnings.push(text);
  }
}
