// JSON values of any size in Durable Object storage. A SQLite-backed object holds at most
// 2 MB per value, and a run's state carries node outputs of several MB: the value's JSON is
// split across `<key>#0..n-1`, and `<key>#chunks` holds n. A value stored whole under `<key>`
// (before chunking) is still read, and replaced by the next write.
import { settingsOf } from "../settings";

/** Characters per chunk: at most 2 bytes each as stored, so a chunk stays near 1 MiB. */
export const CHUNK_CHARS = 512 * 1024;
/** Keys per storage call (the API's limit). */
const KEYS_PER_CALL = 128;

const countKey = (key: string) => `${key}#chunks`;
const chunkKey = (key: string, i: number) => `${key}#${i}`;

function groups<T>(items: T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += KEYS_PER_CALL) out.push(items.slice(i, i + KEYS_PER_CALL));
  return out;
}

/**
 * The most JSON one value may take by default (characters): a run's state holds each node's
 * inputs and outputs, so a 10 MB document passed through a few nodes fits, yet a run or a step
 * that would store more is refused clearly instead of growing an object without end.
 * Deployments change it with MAX_RUN_STATE_CHARS.
 */
export const DEFAULT_MAX_STORED_JSON = 32 * 1024 * 1024;

export class StoredValueTooLarge extends Error {
  constructor(
    readonly size: number,
    readonly limit: number,
  ) {
    super(`The value would take ${size} characters of JSON, over ${limit}`);
    this.name = "StoredValueTooLarge";
  }
}

/** The bound on stored run state (inputs and node outputs) of this deployment. */
export function runStateLimit(env: object): number {
  const n = Number(settingsOf(env).MAX_RUN_STATE_CHARS);
  return Number.isInteger(n) && n > 0 ? n : DEFAULT_MAX_STORED_JSON;
}

/** Writes `value` under `key`, replacing what was there; the writes are coalesced into one atomic batch. */
export async function putChunkedJson(storage: DurableObjectStorage, key: string, value: unknown, maxChars = DEFAULT_MAX_STORED_JSON): Promise<void> {
  const json = JSON.stringify(value);
  if (json.length > maxChars) throw new StoredValueTooLarge(json.length, maxChars);
  const chunks = Math.max(1, Math.ceil(json.length / CHUNK_CHARS));
  const stored = await storage.get<unknown>([countKey(key), key]);
  const previous = (stored.get(countKey(key)) as number | undefined) ?? 0;
  const entries: [string, unknown][] = [[countKey(key), chunks]];
  for (let i = 0; i < chunks; i++) entries.push([chunkKey(key, i), json.slice(i * CHUNK_CHARS, (i + 1) * CHUNK_CHARS)]);
  const stale = Array.from({ length: Math.max(0, previous - chunks) }, (_, i) => chunkKey(key, chunks + i));
  if (stored.has(key)) stale.push(key);
  // No await in between: the runtime commits these writes together.
  await Promise.all([...groups(entries).map((g) => storage.put(Object.fromEntries(g))), ...groups(stale).map((g) => storage.delete(g))]);
}

export async function getChunkedJson<T>(storage: DurableObjectStorage, key: string): Promise<T | undefined> {
  const head = await storage.get<unknown>([countKey(key), key]);
  const chunks = head.get(countKey(key)) as number | undefined;
  if (chunks === undefined) return head.get(key) as T | undefined;
  const keys = Array.from({ length: chunks }, (_, i) => chunkKey(key, i));
  const parts = new Map<string, string>();
  for (const group of groups(keys)) for (const [k, v] of await storage.get<string>(group)) parts.set(k, v);
  return JSON.parse(keys.map((k) => parts.get(k) ?? "").join("")) as T;
}
