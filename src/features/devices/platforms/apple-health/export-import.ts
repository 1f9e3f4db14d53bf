// An uploaded export.xml (in R2) imported a chunk at a time: each step reads the next range of
// bytes, parses the top-level elements it holds whole (export-parser.ts), stores their readings
// (idempotent: a sample's id is a hash of what identifies it, so a step run twice, or a second
// import of a newer export, only meets its own Observations) and moves the byte offset to the
// first element not read. The state is plain data (offset and counts): the Durable Object that
// runs the steps persists it after each one, so an evicted import resumes where it was.
import type { OrgContext } from "../../../../platform/org-context";
import { storeItems } from "../companion/store-items";
import { sha256Hex } from "../webhooks/signature";
import { ExportFormatError, parseExportChunk, type ExportElement } from "./export-parser";
import { APPLE_HEALTH_KIND, type HealthKitSample, mapHealthKitSample } from "./mapping";

/** Bytes read per step: about 4,000 Records of a real export. */
export const DEFAULT_CHUNK_BYTES = 1024 * 1024;
/** A single top-level element larger than this (a Workout with a huge route) fails the import. */
const MAX_CHUNK_BYTES = 16 * 1024 * 1024;
const MAX_ERRORS_KEPT = 20;

export interface ExportImportState {
  readonly orgId: string;
  readonly deviceId: string;
  readonly patientId: string;
  readonly syncId: string;
  /** The export in R2. */
  readonly key: string;
  readonly size: number;
  offset: number;
  chunkBytes: number;
  steps: number;
  records: number;
  readings: number;
  created: number;
  duplicates: number;
  rejected: number;
  skipped: Record<string, number>;
  errors: { reason: string; record?: string }[];
  state: "queued" | "running" | "completed" | "failed";
}

export function newImportState(init: Pick<ExportImportState, "orgId" | "deviceId" | "patientId" | "syncId" | "key" | "size">, chunkBytes = DEFAULT_CHUNK_BYTES): ExportImportState {
  return { ...init, offset: 0, chunkBytes, steps: 0, records: 0, readings: 0, created: 0, duplicates: 0, rejected: 0, skipped: {}, errors: [], state: "queued" };
}

/** The sync log's progress entry for the import (the device core's per-data-type shape, plus bytes). */
export function importProgress(s: ExportImportState): Record<string, unknown> {
  const skipped = Object.values(s.skipped).reduce((a, b) => a + b, 0);
  return {
    "export.xml": {
      state: s.state === "queued" ? "pending" : s.state,
      pages_fetched: s.steps,
      readings_received: s.readings,
      observations_created: s.created,
      duplicates_skipped: s.duplicates,
      readings_rejected: s.rejected,
      errors: s.errors,
      rate_limited: 0,
      bytes_total: s.size,
      bytes_processed: s.offset,
      records_read: s.records,
      records_skipped: skipped,
      skipped_by_reason: s.skipped,
    },
  };
}

/** export.xml has no sample UUIDs: what identifies a sample (type, times, source, value) hashed. */
async function sampleOf(e: ExportElement): Promise<HealthKitSample> {
  const key = [e.type, e.start, e.end, e.sourceName ?? "", e.value ?? "", ...(e.objects ?? []).map((o) => `${o.type}=${o.value ?? ""}`)].join("|");
  const id = `export-${(await sha256Hex(key)).slice(0, 40)}`;
  const { objects, ...rest } = e;
  return { ...rest, id, ...(objects ? { objects: objects.map((o) => ({ ...o, id })) } : {}) };
}

const fail = (s: ExportImportState, reason: string): ExportImportState => ({ ...s, state: "failed", errors: [...s.errors, { reason }].slice(-MAX_ERRORS_KEPT) });

/** One step: the next chunk read, parsed and stored. Returns the new state (completed or failed when done). */
export async function importStep(data: OrgContext, bucket: R2Bucket, state: ExportImportState): Promise<ExportImportState> {
  const s: ExportImportState = { ...state, state: "running", skipped: { ...state.skipped }, errors: [...state.errors] };
  if (s.offset >= s.size) return { ...s, state: "completed" };
  const object = await bucket.get(s.key, { range: { offset: s.offset, length: Math.min(s.chunkBytes, s.size - s.offset) } });
  if (!object) return fail(s, "the uploaded export is gone from storage");
  const bytes = new Uint8Array(await object.arrayBuffer());
  const atEnd = s.offset + bytes.length >= s.size;
  // A multi-byte character cut at the chunk's end is held back by the streaming decoder; it lies past the last whole element anyway.
  const text = new TextDecoder("utf-8").decode(bytes, { stream: !atEnd });
  let chunk: ReturnType<typeof parseExportChunk>;
  try {
    chunk = parseExportChunk(text, s.offset === 0);
  } catch (err) {
    return fail(s, err instanceof ExportFormatError ? err.message : `parse error: ${String(err)}`);
  }
  if (chunk.consumed === 0 && !chunk.ended) {
    if (atEnd) return fail(s, `export.xml ends inside an element (byte ${s.offset})`);
    if (s.chunkBytes >= MAX_CHUNK_BYTES) return fail(s, `an element at byte ${s.offset} is larger than ${MAX_CHUNK_BYTES} bytes`);
    return { ...s, chunkBytes: Math.min(s.chunkBytes * 2, MAX_CHUNK_BYTES) };
  }
  const device = { deviceId: s.deviceId, patientId: s.patientId };
  const samples = await Promise.all(chunk.elements.map(sampleOf));
  const answer = await storeItems(data, APPLE_HEALTH_KIND, samples.map((sample) => mapHealthKitSample(device, sample)), "records");
  s.steps += 1;
  s.records += chunk.elements.length;
  s.readings += answer.created + answer.updated + answer.duplicates + answer.rejected;
  s.created += answer.created;
  s.duplicates += answer.duplicates;
  s.rejected += answer.rejected;
  for (const r of answer.results) {
    if (r.status === "skipped" && r.reason) s.skipped[r.reason] = (s.skipped[r.reason] ?? 0) + 1;
    if (r.status === "rejected" && s.errors.length < MAX_ERRORS_KEPT) s.errors.push({ reason: (r.errors ?? []).map((e) => e.message).join("; "), record: `${samples[r.index]?.type} ${samples[r.index]?.start}` });
  }
  for (const [reason, n] of Object.entries(chunk.skipped)) s.skipped[reason] = (s.skipped[reason] ?? 0) + n;
  s.offset = chunk.ended ? s.size : s.offset + new TextEncoder().encode(text.slice(0, chunk.consumed)).length;
  if (s.offset >= s.size) s.state = "completed";
  return s;
}

/** The state's progress into the org's sync log. */
export async function writeImportLog(data: OrgContext, s: ExportImportState, started: boolean): Promise<void> {
  const now = new Date().toISOString();
  const state = s.state === "queued" ? "running" : s.state;
  await data.platformServices.writeSyncLog(data, s.syncId, { state, progress: importProgress(s), ...(started ? { startedAt: now } : {}), ...(state === "completed" || state === "failed" ? { finishedAt: now } : {}) });
}
