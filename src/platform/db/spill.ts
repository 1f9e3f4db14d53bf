// Client-sized text that may outgrow a D1 row (2 MB per row or value): kept inline while
// small, in R2 above a threshold with the object's key in the row instead.
import { utf8Exceeds } from "./size";

/** Text above this many UTF-8 bytes goes to R2: far below D1's cap, and keeps row reads cheap. */
export const INLINE_MAX_BYTES = 128 * 1024;

/** Where a text is kept: inline in the row, or in R2 under `key` (exactly one is set). */
export interface Spilled {
  inline: string | null;
  key: string | null;
}

/** Keeps `text` inline, or puts it in R2 under `key` when over `max` bytes. */
export async function spill(bucket: R2Bucket, key: string, text: string, contentType: string, max = INLINE_MAX_BYTES): Promise<Spilled> {
  if (!utf8Exceeds(text, max)) return { inline: text, key: null };
  await bucket.put(key, text, { httpMetadata: { contentType } });
  return { inline: null, key };
}

/** The text a row holds inline or points at; undefined when the object is gone. */
export async function unspill(bucket: R2Bucket, spilled: Spilled): Promise<string | undefined> {
  if (spilled.key === null) return spilled.inline ?? undefined;
  const object = await bucket.get(spilled.key);
  return object ? object.text() : undefined;
}
