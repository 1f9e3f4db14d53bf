// The organization's files for pipeline nodes: R2 objects under orgs/<org>/files/<key>.
// Nodes keep large payloads (DICOM instances, X12 files) here and pass the key on, never the
// bytes, so run state stays small. A stream of unknown length (a multipart part) is stored
// through a multipart upload with parts cut to one size, as R2 wants, so memory stays flat.
import { ApiError, notFound } from "../../platform/errors";

/** Every part of a multipart upload but the last has this size (R2: equal parts, at least 5 MiB). */
export const FILE_PART_SIZE = 8 * 1024 * 1024;

export interface StoredFile {
  key: string;
  bytes: number;
  contentType: string;
}

export interface NodeFile extends StoredFile {
  body: ReadableStream<Uint8Array>;
}

export interface NodeFiles {
  /**
   * Stores a file; in test mode this throws (nodes report a would-write instead). `origin`
   * (the execution and node) goes into the files index the files API lists.
   */
  put(key: string, body: ReadableStream<Uint8Array> | Uint8Array | string, info: { contentType: string; origin?: { executionId: string; nodeId: string } }): Promise<StoredFile>;
  /** A stored file; FILE_NOT_FOUND when there is none under the key. */
  get(key: string): Promise<NodeFile>;
  /** A stored file's size and type with its first `length` bytes (a check before streaming it); FILE_NOT_FOUND when none. */
  peek(key: string, length: number): Promise<StoredFile & { start: Uint8Array }>;
}

// Relative keys only: no leading slash, no "." or ".." segments, nothing that could leave the org's folder.
const KEY = /^(?!.*(?:^|\/)\.{1,2}(?:\/|$))[A-Za-z0-9][A-Za-z0-9._\-/]{0,511}$/;

export function checkFileKey(key: string): string {
  if (typeof key !== "string" || !KEY.test(key) || key.includes("//")) throw new ApiError(400, "FILE_KEY_INVALID", `File key "${String(key).slice(0, 100)}" is not a relative path of letters, digits, . _ - /`);
  return key;
}

async function putStream(bucket: R2Bucket, key: string, stream: ReadableStream<Uint8Array>, contentType: string): Promise<number> {
  const reader = stream.getReader();
  let pending: Uint8Array[] = [];
  let pendingBytes = 0;
  let upload: R2MultipartUpload | undefined;
  const parts: R2UploadedPart[] = [];
  const take = (n: number): Uint8Array => {
    const out = new Uint8Array(n);
    let at = 0;
    while (at < n) {
      const head = pending[0] as Uint8Array;
      const used = Math.min(head.byteLength, n - at);
      out.set(head.subarray(0, used), at);
      at += used;
      if (used === head.byteLength) pending.shift();
      else pending[0] = head.subarray(used);
    }
    pendingBytes -= n;
    return out;
  };
  let total = 0;
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      pending.push(value);
      pendingBytes += value.byteLength;
      total += value.byteLength;
      while (pendingBytes >= FILE_PART_SIZE * 2 || (upload && pendingBytes >= FILE_PART_SIZE)) {
        upload ??= await bucket.createMultipartUpload(key, { httpMetadata: { contentType } });
        parts.push(await upload.uploadPart(parts.length + 1, take(FILE_PART_SIZE)));
      }
    }
    if (!upload) {
      await bucket.put(key, take(pendingBytes), { httpMetadata: { contentType } });
      return total;
    }
    if (pendingBytes > 0) parts.push(await upload.uploadPart(parts.length + 1, take(pendingBytes)));
    await upload.complete(parts);
    return total;
  } catch (e) {
    await upload?.abort().catch(() => {});
    await reader.cancel().catch(() => {});
    pending = [];
    throw e;
  }
}

/** Where a file's R2 object lives: under its organization's folder, always. */
export const fileObjectKey = (orgId: string, key: string): string => `orgs/${orgId}/files/${checkFileKey(key)}`;

/** Records a stored file in the files index (after R2 has it: a row never names a missing object). */
export type FileRecorder = (file: StoredFile, origin: { executionId?: string; nodeId?: string }) => Promise<void>;

export function nodeFiles(bucket: R2Bucket, orgId: string, testMode: boolean, record?: FileRecorder): NodeFiles {
  const path = (key: string) => fileObjectKey(orgId, key);
  return {
    put: async (key, body, { contentType, origin }) => {
      const full = path(key);
      if (testMode) throw new ApiError(409, "TEST_MODE_WRITE_BLOCKED", "Test mode blocks storing files");
      const bytes =
        body instanceof ReadableStream ? await putStream(bucket, full, body, contentType) : (await bucket.put(full, body, { httpMetadata: { contentType } })).size;
      const stored = { key, bytes, contentType };
      await record?.(stored, origin ?? {});
      return stored;
    },
    get: async (key) => {
      const object = await bucket.get(path(key));
      if (!object) throw notFound(`No file ${key}`, "FILE_NOT_FOUND");
      return { key, bytes: object.size, contentType: object.httpMetadata?.contentType ?? "application/octet-stream", body: object.body };
    },
    peek: async (key, length) => {
      const head = await bucket.head(path(key));
      if (!head) throw notFound(`No file ${key}`, "FILE_NOT_FOUND");
      const take = Math.min(length, head.size);
      const part = take > 0 ? await bucket.get(path(key), { range: { offset: 0, length: take } }) : null;
      const start = part ? new Uint8Array(await part.arrayBuffer()) : new Uint8Array(0);
      return { key, bytes: head.size, contentType: head.httpMetadata?.contentType ?? "application/octet-stream", start };
    },
  };
}
