// DICOM UIDs (PS3.5 9.1): digits and dots, at most 64 characters. They are checked before
// they go into a URL path, so a "UID" like ../../x can never address another resource.
import { invalidRequest } from "./errors";

const UID = /^(0|[1-9][0-9]*)(\.(0|[1-9][0-9]*))+$/;

export const isUid = (value: string): boolean => value.length <= 64 && UID.test(value);

/** `value` if it is a UID; DICOMWEB_INVALID_REQUEST naming `what` otherwise. */
export function checkUid(value: string, what: string): string {
  if (typeof value !== "string" || !isUid(value)) throw invalidRequest(`${what} ${JSON.stringify(value)} is not a DICOM UID (digits and dots, at most 64 characters)`);
  return value;
}
