// The files nodes keep in R2, as the files API sees them: listed and paged from the D1
// index, downloaded as a stream from R2, deleted from both. Every lookup is by the
// organization's own rows, and the object key is built from the org: another org's file
// is a 404, never a read.
import type { OrgData } from "../../../platform/org-data";
import { notFound } from "../../../platform/errors";
import { type FileFilter, FileIndex } from "../file-index";
import { fileObjectKey, nodeFiles } from "../node-files";
import type { StoredFileRow } from "../tables";

const fileNotFound = (id: string) => notFound(`File ${id} not found`, "FILE_NOT_FOUND");

export function listFiles(data: OrgData, filter: FileFilter, limit: number, offset: number): Promise<{ rows: StoredFileRow[]; total: number }> {
  const { orgId } = data;
  return new FileIndex(data.db).list(orgId, filter, limit, offset);
}

export async function getFile(data: OrgData, id: string): Promise<StoredFileRow> {
  const { orgId } = data;
  const row = await new FileIndex(data.db).get(orgId, id);
  if (!row) throw fileNotFound(id);
  return row;
}

/**
 * Stores a file given through the API (an X12 file for X12 to FHIR, a DICOM file for DICOM
 * store) where nodes read it, and indexes it with no pipeline; the same key again replaces it.
 */
export async function uploadFile(data: OrgData, file: { key: string; contentType: string; content: Uint8Array | string }): Promise<StoredFileRow> {
  const { orgId } = data;
  const index = new FileIndex(data.db);
  const files = nodeFiles(data.blobs, orgId, false, (stored, origin) => index.record(orgId, stored, origin));
  await files.put(file.key, file.content, { contentType: file.contentType });
  const row = await index.byKey(orgId, file.key);
  if (!row) throw fileNotFound(file.key);
  return row;
}

/** The file's row and its R2 object (streamed by the caller); 404 when either is gone. */
export async function openFile(data: OrgData, id: string): Promise<{ row: StoredFileRow; object: R2ObjectBody }> {
  const { orgId } = data;
  const row = await getFile(data, id);
  const object = await data.blobs.get(fileObjectKey(orgId, row.key));
  if (!object) throw fileNotFound(id);
  return { row, object };
}

/** Deletes the object, then the row (a row never outlives its object for long: a retry finishes it). */
export async function deleteFile(data: OrgData, id: string): Promise<void> {
  const { orgId } = data;
  const row = await getFile(data, id);
  await data.blobs.delete(fileObjectKey(orgId, row.key));
  await new FileIndex(data.db).remove(orgId, id);
}
