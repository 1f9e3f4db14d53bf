// What a STOW would send, without sending it: each file's identity from its Part-10 tags.
// The Store node's test_mode reports this; a real store reports `StowResult` instead.
import { firstText, TAG } from "./dicom-json";
import { DicomwebError, dicomInvalid } from "./errors";
import { isPart10Start, part10Dataset } from "./part10";

export interface PlannedInstance {
  studyInstanceUid: string;
  seriesInstanceUid?: string;
  sopInstanceUid: string;
  sopClassUid?: string;
  bytes: number;
}

/** What a STOW check before sending needs of a file: its size and first bytes. */
export interface FileHead {
  key: string;
  bytes: number;
  start: Uint8Array;
}

/**
 * Refuses a STOW before anything is sent: a file that is not Part-10 (DICOM_INVALID, 400;
 * a server refuses it mid-request, which may drop the connection), or files over `maxBytes`
 * together (DICOMWEB_TOO_LARGE, 413). Answers the total.
 */
export function checkStow(files: readonly FileHead[], maxBytes: number): number {
  let total = 0;
  for (const f of files) {
    if (!isPart10Start(f.start)) throw dicomInvalid(`File ${f.key} is not a DICOM Part-10 file (no "DICM" after the 128-byte preamble); nothing was sent`);
    total += f.bytes;
  }
  if (total > maxBytes) throw new DicomwebError("DICOMWEB_TOO_LARGE", `${files.length} files hold ${total} bytes, over max_bytes ${maxBytes}; nothing was sent (split the files over several stores, or raise max_bytes up to what the server accepts)`);
  return total;
}

/** The instances `files` hold, in order; DICOM_INVALID names the first that is not a DICOM file. */
export function planStow(files: readonly Uint8Array[]): PlannedInstance[] {
  return files.map((file) => {
    const ds = part10Dataset(file);
    const optional = (key: "seriesInstanceUid" | "sopClassUid", tag: string) => {
      const v = firstText(ds, tag);
      return v === undefined ? {} : { [key]: v };
    };
    return {
      studyInstanceUid: firstText(ds, TAG.StudyInstanceUID) as string,
      sopInstanceUid: firstText(ds, TAG.SOPInstanceUID) as string,
      ...optional("seriesInstanceUid", TAG.SeriesInstanceUID),
      ...optional("sopClassUid", TAG.SOPClassUID),
      bytes: file.byteLength,
    };
  });
}
