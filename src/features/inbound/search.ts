// Content search by field path (HL7 v2: PID-3 = 4711), server side with paging. SQL cannot read a
// field of a message, so the store narrows the candidates to messages whose text contains the
// value, and each candidate's protocol adapter reads the path; the matches are counted over at
// most SCAN_LIMIT candidates, newest first.
import type { FieldPaths } from "./adapter";
import type { InboundMessageStore, InboundMessageSummary, MessageFilter } from "./store";

/** Candidates read for one search: the newest this many whose text contains the value. */
export const SCAN_LIMIT = 2000;
const BATCH = 100;
/** A value holding a delimiter is written escaped in the text, so the text prefilter would miss it. */
const DELIMITERS = /[|^~\\&]/;

export interface FieldSearch {
  path: string;
  value: string;
  /** The protocols that know the path, with their readers. */
  readers: ReadonlyMap<string, FieldPaths>;
}

export async function searchByField(
  store: InboundMessageStore,
  filter: MessageFilter,
  search: FieldSearch,
  limit: number,
  offset: number,
): Promise<{ rows: InboundMessageSummary[]; total: number }> {
  const wanted = search.value.toLowerCase();
  const narrowed: MessageFilter = {
    ...filter,
    protocols: [...search.readers.keys()].filter((p) => !filter.protocol || p === filter.protocol),
    texts: [...(filter.texts ?? []), ...(DELIMITERS.test(search.value) ? [] : [search.value])],
  };
  const matched: number[] = [];
  let scanned = 0;
  let before: number | undefined;
  while (scanned < SCAN_LIMIT) {
    const rows = await store.candidates(narrowed, Math.min(BATCH, SCAN_LIMIT - scanned), before);
    for (const row of rows) {
      const values = search.readers.get(row.protocol)?.values(row.raw, search.path) ?? [];
      if (values.some((v) => v.toLowerCase() === wanted)) matched.push(row.seq);
    }
    scanned += rows.length;
    if (rows.length < BATCH) break;
    before = rows[rows.length - 1]!.seq;
  }
  return { rows: await store.summaries(matched.slice(offset, offset + limit)), total: matched.length };
}
