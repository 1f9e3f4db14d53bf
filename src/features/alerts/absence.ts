// Absence of data, pure: is a rule's patient (or device) silent, and when to look again.
// Silence is measured from the latest matching reading. A platform that syncs late (a week at
// once) may still deliver the gap, so a gap counts only where the platform has reported on it:
// up to the device's last sync when that is known, or when nothing at all (no reading, no sync)
// arrived within the span (docs/alerts.md, "Absence of data").

export interface AbsenceInput {
  spanMs: number;
  /** Latest matching reading time (ms), or when the rule began watching if it never saw one. */
  lastReadingAt: number;
  /** Latest sync of the rule's devices (ms), when the device platform knows it. */
  lastSyncAt?: number;
  now: number;
}

export type AbsenceVerdict =
  | { silent: true; reason: "no_data" | "no_transmission"; since: number }
  | { silent: false; nextCheckAt: number };

/** How often a rule past its span but not yet judged silent waits for a sync to report. */
export const RECHECK_MS = 5 * 60_000;

export function absenceVerdict({ spanMs, lastReadingAt, lastSyncAt, now }: AbsenceInput): AbsenceVerdict {
  // The platform synced after the span ran out and brought nothing newer: the gap is real.
  if (lastSyncAt !== undefined && lastSyncAt - lastReadingAt > spanMs) return { silent: true, reason: "no_data", since: lastReadingAt };
  const lastContact = Math.max(lastReadingAt, lastSyncAt ?? Number.NEGATIVE_INFINITY);
  // Nothing received at all for the span: not even a sync (or syncs are unknown).
  if (now - lastContact > spanMs) return { silent: true, reason: lastSyncAt !== undefined ? "no_transmission" : "no_data", since: lastReadingAt };
  // Before the span ends nothing can change the verdict but a reading; after it, a sync can.
  const spanEnds = lastReadingAt + spanMs + 1;
  return { silent: false, nextCheckAt: Math.max(spanEnds, Math.min(now + RECHECK_MS, lastContact + spanMs + 1)) };
}
