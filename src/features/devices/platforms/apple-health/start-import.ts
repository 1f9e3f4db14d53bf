// Accepting an export.xml: the body is streamed into R2 (never held in memory; its declared
// length is required and capped, and workerd holds the stream to it), a sync log is opened,
// and an AppleHealthImport object is started on it. The companion app (or whoever uploads)
// gets the sync id at once; the import's progress is in the sync log.
import { ApiError, badRequest } from "../../../../platform/errors";
import { orgObject } from "../../../../platform/durable-objects/object-names";
import type { OrgContext } from "../../../../platform/org-context";
import type { DeviceLinkView } from "../services";
import { DEFAULT_CHUNK_BYTES, importProgress, newImportState } from "./export-import";

/** Exports run to hundreds of MB; R2 takes up to 5 GB in one put. */
export const MAX_EXPORT_BYTES = 4 * 1024 * 1024 * 1024;

export async function startExportImport(data: OrgContext, device: DeviceLinkView, body: ReadableStream | null, declaredLength: string | undefined, requestedBy: string, chunkBytes = DEFAULT_CHUNK_BYTES): Promise<{ syncId: string; size: number }> {
  if (declaredLength === undefined) throw new ApiError(411, "LENGTH_REQUIRED", "Send export.xml with a Content-Length");
  const size = Number(declaredLength);
  if (!Number.isSafeInteger(size) || size <= 0 || !body) throw badRequest("export.xml is empty");
  if (size > MAX_EXPORT_BYTES) throw new ApiError(413, "PAYLOAD_TOO_LARGE", `export.xml may be at most ${MAX_EXPORT_BYTES} bytes`);
  const key = `apple-health-exports/${data.orgId}/${crypto.randomUUID()}.xml`;
  await data.env.BLOBS.put(key, body, { httpMetadata: { contentType: "application/xml" } });
  const now = new Date().toISOString();
  const init = { orgId: data.orgId, deviceId: device.deviceId, patientId: device.patientId, key, size };
  const syncId = await data.platformServices.openSyncLog(data, { deviceId: device.deviceId, from: now, to: now, requestedBy, progress: importProgress(newImportState({ ...init, syncId: "" })) });
  await orgObject(data.env.APPLE_HEALTH_IMPORT, data.orgId, "apple-health-import", syncId).start(newImportState({ ...init, syncId }, chunkBytes));
  return { syncId, size };
}
