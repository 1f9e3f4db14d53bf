// Shared by the DICOMweb tests: the DicomwebError a promise rejects with.
import { expect } from "vitest";
import { DicomwebError } from "../../../../src/standards/dicomweb";

/** The DicomwebError `promise` rejects with; fails the test if it resolves or rejects otherwise. */
export async function failure(promise: Promise<unknown>): Promise<DicomwebError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(DicomwebError);
  return err as DicomwebError;
}
