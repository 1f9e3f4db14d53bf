// DICOM JSON (PS3.18 F.2): datasets keyed by 8-hex-digit tags, each element a VR and a
// Value array. Accessors read the first value as the mapping needs it; `datasetsOf`
// checks that what a server sent is that shape before anything reads it.
import { badResponse } from "./errors";

export interface DicomJsonElement {
  vr: string;
  Value?: unknown[];
  BulkDataURI?: string;
  InlineBinary?: string;
}

export type DicomJsonDataset = Record<string, DicomJsonElement>;

/** The tags this module reads, by keyword. */
export const TAG = {
  SOPClassUID: "00080016",
  SOPInstanceUID: "00080018",
  StudyDate: "00080020",
  SeriesDate: "00080021",
  StudyTime: "00080030",
  SeriesTime: "00080031",
  AccessionNumber: "00080050",
  Modality: "00080060",
  ModalitiesInStudy: "00080061",
  TimezoneOffsetFromUTC: "00080201",
  RetrieveURL: "00081190",
  StudyDescription: "00081030",
  SeriesDescription: "0008103E",
  PatientName: "00100010",
  PatientID: "00100020",
  StudyInstanceUID: "0020000D",
  SeriesInstanceUID: "0020000E",
  StudyID: "00200010",
  SeriesNumber: "00200011",
  InstanceNumber: "00200013",
  NumberOfStudyRelatedSeries: "00201206",
  NumberOfStudyRelatedInstances: "00201208",
  NumberOfSeriesRelatedInstances: "00201209",
  FailureReason: "00081197",
  FailedSOPSequence: "00081198",
  ReferencedSOPSequence: "00081199",
  ReferencedSOPClassUID: "00081150",
  ReferencedSOPInstanceUID: "00081155",
  WarningReason: "00081196",
} as const;

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** The element of `tag` in either case of its hex digits (servers differ). */
function element(ds: DicomJsonDataset, tag: string): DicomJsonElement | undefined {
  return ds[tag] ?? ds[tag.toLowerCase()];
}

function text(value: unknown): string | undefined {
  if (typeof value === "string") return value.trim() || undefined;
  if (typeof value === "number" && Number.isFinite(value)) return String(value);
  // PN: { Alphabetic, Ideographic, Phonetic }; the alphabetic form is the one to show.
  if (isRecord(value) && typeof value.Alphabetic === "string") return value.Alphabetic.trim() || undefined;
  return undefined;
}

/** Every value of `tag` as text (PN as its alphabetic form), empties dropped. */
export const texts = (ds: DicomJsonDataset, tag: string): string[] => (element(ds, tag)?.Value ?? []).map(text).filter((v): v is string => v !== undefined);

/** The first value of `tag` as text. */
export const firstText = (ds: DicomJsonDataset, tag: string): string | undefined => texts(ds, tag)[0];

/** The first value of `tag` as a number (IS and DS may come as strings). */
export function firstNumber(ds: DicomJsonDataset, tag: string): number | undefined {
  const v = firstText(ds, tag);
  const n = v === undefined ? Number.NaN : Number(v);
  return Number.isFinite(n) ? n : undefined;
}

/** The items of a sequence element. */
export const items = (ds: DicomJsonDataset, tag: string): DicomJsonDataset[] => (element(ds, tag)?.Value ?? []).filter(isRecord) as DicomJsonDataset[];

/** `json` as DICOM JSON datasets (an array of objects whose keys are tags); BAD_RESPONSE otherwise. */
export function datasetsOf(json: unknown, what: string): DicomJsonDataset[] {
  if (!Array.isArray(json)) throw badResponse(`${what}: expected a DICOM JSON array, got ${json === null ? "null" : typeof json}`);
  for (const ds of json) {
    if (!isRecord(ds) || Object.entries(ds).some(([tag, el]) => !/^[0-9A-Fa-f]{8}$/.test(tag) || !isRecord(el) || typeof el.vr !== "string")) {
      throw badResponse(`${what}: an item is not a DICOM JSON dataset (tag keys with {vr, Value})`);
    }
  }
  return json as DicomJsonDataset[];
}
