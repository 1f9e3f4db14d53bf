// What a STOW would send, without sending it: each file's identity from its Part-10 tags.
// The Store node's test_mode reports this; a real store reports `StowResult` instead.
import { firstText, TAG } from "./dicom-json";
import { part10Dataset } from "./part10";

export interface PlannedInstance {
  studyInstanceUid: string;
  seriesInstanceUid?: string;
  sopInstanceUid: string;
  sopClassUid?: string;
  bytes: number;
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
