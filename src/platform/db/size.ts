// Sizes against D1's limits: a row, and any one string or bound value, holds at most
// 2,000,000 bytes (SQLITE_TOOBIG beyond; the local simulator does not enforce it).

export const D1_MAX_VALUE_BYTES = 2_000_000;

/** Whether `text` is over `max` UTF-8 bytes; a UTF-16 unit is at most 3 bytes, so most texts are sized without encoding them. */
export function utf8Exceeds(text: string, max: number): boolean {
  if (text.length <= max / 3) return false;
  if (text.length > max) return true;
  return utf8Length(text) > max;
}

export const utf8Length = (text: string): number => new TextEncoder().encode(text).byteLength;

/** `text` cut to `max` characters, marked with an ellipsis when cut: for client-sized text in a row's summary column. */
export const clip = (text: string, max: number): string => (text.length > max ? `${text.slice(0, max)}…` : text);
