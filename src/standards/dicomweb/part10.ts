// Tags from a DICOM Part-10 file (as stored in R2, or about to be sent by STOW), read with
// dicom-parser (no Node built-ins: its only one, zlib for deflated files, is mapped away for
// browsers and provided by nodejs_compat in Workers) and returned as DICOM JSON, so the
// ImagingStudy mapping and STOW reports treat files and server metadata alike.
import * as dicomParserModule from "dicom-parser";
import { type DicomJsonDataset, TAG } from "./dicom-json";
import { dicomInvalid } from "./errors";

// A UMD bundle: Node's ESM loader exposes it only as the default export, bundlers as both.
const dicomParser = (dicomParserModule as unknown as { default?: typeof dicomParserModule }).default ?? dicomParserModule;

/** The tags read from a file, with the VR their DICOM JSON form takes. */
const READ: [string, string][] = [
  [TAG.SOPClassUID, "UI"],
  [TAG.SOPInstanceUID, "UI"],
  [TAG.StudyDate, "DA"],
  [TAG.SeriesDate, "DA"],
  [TAG.StudyTime, "TM"],
  [TAG.SeriesTime, "TM"],
  [TAG.AccessionNumber, "SH"],
  [TAG.Modality, "CS"],
  [TAG.TimezoneOffsetFromUTC, "SH"],
  [TAG.StudyDescription, "LO"],
  [TAG.SeriesDescription, "LO"],
  [TAG.PatientName, "PN"],
  [TAG.PatientID, "LO"],
  [TAG.StudyInstanceUID, "UI"],
  [TAG.SeriesInstanceUID, "UI"],
  [TAG.StudyID, "SH"],
  [TAG.SeriesNumber, "IS"],
  [TAG.InstanceNumber, "IS"],
];

/** Bytes a Part-10 file starts with: a 128-byte preamble, then "DICM" (PS3.10 7.1). */
export const PART10_HEADER_BYTES = 132;

/** Whether `start` (a file's first PART10_HEADER_BYTES) is the start of a Part-10 file. */
export function isPart10Start(start: Uint8Array): boolean {
  return start.byteLength >= PART10_HEADER_BYTES && start[128] === 0x44 && start[129] === 0x49 && start[130] === 0x43 && start[131] === 0x4d;
}

/** The identifying tags of a Part-10 file as a DICOM JSON dataset; DICOM_INVALID if it is not one. */
export function part10Dataset(bytes: Uint8Array): DicomJsonDataset {
  let parsed: ReturnType<typeof dicomParser.parseDicom>;
  try {
    // Stop before the pixel data: the tags needed come first, and the pixels are most of the file.
    parsed = dicomParser.parseDicom(bytes, { untilTag: "x7fe00010" });
  } catch (e) {
    const reason = e instanceof Error ? e.message : typeof e === "string" ? e : "unreadable";
    throw dicomInvalid(`Not a DICOM Part-10 file: ${reason}`);
  }
  const out: DicomJsonDataset = {};
  for (const [tag, vr] of READ) {
    const raw = parsed.string(`x${tag.toLowerCase()}`);
    if (raw === undefined || raw === "") continue;
    const values = raw.split("\\");
    if (vr === "PN") out[tag] = { vr, Value: values.map((Alphabetic) => ({ Alphabetic })) };
    else if (vr === "IS") out[tag] = { vr, Value: values.map(Number).filter(Number.isFinite) };
    else out[tag] = { vr, Value: values };
  }
  if (!out[TAG.SOPInstanceUID] || !out[TAG.StudyInstanceUID]) throw dicomInvalid("The DICOM file has no SOPInstanceUID or StudyInstanceUID");
  return out;
}
