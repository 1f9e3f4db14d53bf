// DICOM JSON → ImagingStudy edge cases the Orthanc data does not cover, and Part-10 tags
// read from the fixture files (and refused from files that are not DICOM).
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { validateResource } from "../../../../src/features/fhir/validate";
import {
  type DicomJsonDataset,
  DicomwebError,
  firstText,
  imagingStudyCondition,
  imagingStudyFromDicom,
  part10Dataset,
  planStow,
  TAG,
} from "../../../../src/standards/dicomweb";
import { dicomDateTime } from "../../../../src/standards/dicomweb/imaging-study";

const el = (vr: string, ...Value: unknown[]) => ({ vr, Value });
const instance = (study: string, series: string, sop: string, extra: DicomJsonDataset = {}): DicomJsonDataset => ({
  [TAG.StudyInstanceUID]: el("UI", study),
  [TAG.SeriesInstanceUID]: el("UI", series),
  [TAG.SOPInstanceUID]: el("UI", sop),
  [TAG.SOPClassUID]: el("UI", "1.2.840.10008.5.1.4.1.1.2"),
  ...extra,
});
const subject = { reference: "Patient/p" };
const code = (e: unknown) => (e as DicomwebError).code;

function thrown(f: () => unknown): unknown {
  try {
    f();
  } catch (e) {
    return e;
  }
  throw new Error("expected a throw");
}

describe("imagingStudyFromDicom", () => {
  it("orders series and instances by number, counts them, and codes each modality once", () => {
    const study = imagingStudyFromDicom(
      [
        instance("1.9", "1.9.2", "1.9.2.2", { [TAG.Modality]: el("CS", "CT"), [TAG.SeriesNumber]: el("IS", 2), [TAG.InstanceNumber]: el("IS", "2") }),
        instance("1.9", "1.9.2", "1.9.2.1", { [TAG.Modality]: el("CS", "CT"), [TAG.SeriesNumber]: el("IS", 2), [TAG.InstanceNumber]: el("IS", "1") }),
        instance("1.9", "1.9.1", "1.9.1.1", { [TAG.Modality]: el("CS", "PT"), [TAG.SeriesNumber]: el("IS", 1), [TAG.SeriesDescription]: el("LO", "PET") }),
        instance("1.9", "1.9.3", "1.9.3.1"),
      ],
      { subject },
    );
    expect(study.series?.map((s) => [s.uid, s.modality.code, s.numberOfInstances, s.instance?.map((i) => i.uid)])).toEqual([
      ["1.9.1", "PT", 1, ["1.9.1.1"]],
      ["1.9.2", "CT", 2, ["1.9.2.1", "1.9.2.2"]],
      // No modality: DICOM's "OT", since FHIR requires one.
      ["1.9.3", "OT", 1, ["1.9.3.1"]],
    ]);
    expect(study.series?.[0]?.description).toBe("PET");
    expect(study.modality?.map((m) => m.code)).toEqual(["CT", "OT", "PT"]);
    expect([study.numberOfSeries, study.numberOfInstances]).toEqual([3, 4]);
    expect(validateResource(study)).toEqual([]);
  });

  it("writes started with the file's offset, the caller's timezone, or as a date only", () => {
    expect(dicomDateTime("20240131", "235959.123", "+01:00")).toBe("2024-01-31T23:59:59.123+01:00");
    expect(dicomDateTime("20240131", "0930", "Z")).toBe("2024-01-31T09:30:00Z");
    expect(dicomDateTime("20240131", "093000", undefined)).toBe("2024-01-31");
    expect(dicomDateTime("2024013", "093000", "Z")).toBeUndefined();
    const ds = instance("1.9", "1.9.1", "1.9.1.1", { [TAG.StudyDate]: el("DA", "20240131"), [TAG.StudyTime]: el("TM", "093000") });
    expect(imagingStudyFromDicom([ds], { subject }).started).toBe("2024-01-31");
    expect(imagingStudyFromDicom([ds], { subject, timezone: "Z" }).started).toBe("2024-01-31T09:30:00Z");
    expect(imagingStudyFromDicom([{ ...ds, [TAG.TimezoneOffsetFromUTC]: el("SH", "-0500") }], { subject, timezone: "Z" }).started).toBe("2024-01-31T09:30:00-05:00");
  });

  it("refuses datasets of several studies, without a study UID, or with a malformed UID", () => {
    expect(code(thrown(() => imagingStudyFromDicom([instance("1.1", "1.1.1", "1.1.1.1"), instance("1.2", "1.2.1", "1.2.1.1")], { subject })))).toBe("DICOM_INVALID");
    expect(code(thrown(() => imagingStudyFromDicom([], { subject })))).toBe("DICOM_INVALID");
    expect(code(thrown(() => imagingStudyFromDicom([{ [TAG.PatientID]: el("LO", "x") }], { subject })))).toBe("DICOM_INVALID");
    expect(code(thrown(() => imagingStudyFromDicom([instance("1.1", "x.y", "1.1.1.1")], { subject })))).toBe("DICOM_INVALID");
    const noClass = instance("1.1", "1.1.1", "1.1.1.1");
    delete noClass[TAG.SOPClassUID];
    expect(code(thrown(() => imagingStudyFromDicom([noClass], { subject })))).toBe("DICOM_INVALID");
  });

  it("is keyed on the study UID: the condition a conditional update searches", () => {
    expect(imagingStudyCondition("1.2.840.1")).toBe("identifier=urn%3Adicom%3Auid%7Curn%3Aoid%3A1.2.840.1");
    const a = imagingStudyFromDicom([instance("1.9", "1.9.1", "1.9.1.1")], { subject });
    expect(imagingStudyFromDicom([instance("1.9", "1.9.1", "1.9.1.1")], { subject })).toEqual(a);
  });
});

describe("Part-10 files", () => {
  const fixture = (name: string) => new Uint8Array(readFileSync(path.join(import.meta.dirname, "../../../fixtures/dicom", name)));

  it("reads the identifying tags with dicom-parser", () => {
    const ds = part10Dataset(fixture("ct-small.dcm"));
    expect([TAG.PatientID, TAG.Modality, TAG.AccessionNumber, TAG.StudyDate, TAG.SeriesNumber].map((t) => ds[t]?.Value?.[0])).toEqual(["1CT1", "CT", "ACC-CT-1", "20040119", 1]);
    expect(ds[TAG.PatientName]).toEqual({ vr: "PN", Value: [{ Alphabetic: "CompressedSamples^CT1" }] });
    expect(firstText(ds, TAG.StudyInstanceUID)).toBe("1.3.6.1.4.1.5962.1.2.1.20040119072730.12322");
  });

  it("plans a STOW (test mode) from the files, and names a file that is not DICOM", () => {
    const files = [fixture("mr-small-1.dcm"), fixture("mr-small-2.dcm")];
    expect(planStow(files).map((p) => [p.studyInstanceUid, p.bytes])).toEqual([
      ["1.3.6.1.4.1.5962.1.2.4.20040826185059.5457", files[0]?.length],
      ["1.3.6.1.4.1.5962.1.2.4.20040826185059.5457", files[1]?.length],
    ]);
    const err = thrown(() => planStow([new TextEncoder().encode("not a DICOM file at all, but long enough to have a preamble? no")]));
    expect(err).toBeInstanceOf(DicomwebError);
    expect([code(err), (err as Error).message]).toEqual(["DICOM_INVALID", expect.stringMatching(/^Not a DICOM Part-10 file/)]);
  });
});
