// The STOW-RS response (PS3.18 10.5.3): which instances the server stored
// (ReferencedSOPSequence) and which it refused (FailedSOPSequence, with a reason code).
import { type DicomJsonDataset, firstNumber, firstText, items, TAG } from "./dicom-json";

export interface StoredSop {
  sopClassUid?: string;
  sopInstanceUid?: string;
  retrieveUrl?: string;
  /** Set when the server coerced or otherwise warned about this instance. */
  warningReason?: number;
}

export interface FailedSop {
  sopClassUid?: string;
  sopInstanceUid?: string;
  reason?: number;
  reasonText: string;
}

export interface StowResult {
  /** 200: all stored; 202: some failed or warnings; 409 is an error, not a result. */
  status: number;
  stored: StoredSop[];
  failed: FailedSop[];
  /** The study's RetrieveURL, when the server gave one (check it before use: row I2). */
  retrieveUrl?: string;
}

// PS3.4 B.2.3 and PS3.18 table 10.5.3-2: the reasons a STOW can give per instance.
const REASONS = new Map<number, string>([
  [0x0110, "processing failure"],
  [0x0122, "SOP class not supported"],
  [0x0124, "not authorized"],
  [0xa700, "out of resources"],
  [0xa900, "data set does not match SOP class"],
  [0xc000, "cannot understand"],
  [0xc122, "referenced transfer syntax not supported"],
  [0xc409, "conflict: differing patient, study or series attributes"],
]);

export const failureText = (reason: number | undefined): string =>
  reason === undefined ? "no reason given" : `${REASONS.get(reason) ?? "failure"} (0x${reason.toString(16).toUpperCase().padStart(4, "0")})`;

const defined = <T extends object>(o: T): T => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;

/** The per-instance outcome in a STOW response body (one dataset, or an array of one). */
export function stowOutcome(status: number, body: DicomJsonDataset | undefined): StowResult {
  const ds = body ?? {};
  const stored = items(ds, TAG.ReferencedSOPSequence).map((item) =>
    defined<StoredSop>({
      sopClassUid: firstText(item, TAG.ReferencedSOPClassUID),
      sopInstanceUid: firstText(item, TAG.ReferencedSOPInstanceUID),
      retrieveUrl: firstText(item, TAG.RetrieveURL),
      warningReason: firstNumber(item, TAG.WarningReason),
    }),
  );
  const failed = items(ds, TAG.FailedSOPSequence).map((item) => {
    const reason = firstNumber(item, TAG.FailureReason);
    return defined<FailedSop>({
      sopClassUid: firstText(item, TAG.ReferencedSOPClassUID),
      sopInstanceUid: firstText(item, TAG.ReferencedSOPInstanceUID),
      reason,
      reasonText: failureText(reason),
    });
  });
  return defined<StowResult>({ status, stored, failed, retrieveUrl: firstText(ds, TAG.RetrieveURL) });
}
