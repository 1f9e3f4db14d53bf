// The DICOMweb plug-in's public surface. Pipeline nodes (wired by the node registry) are
// thin wrappers over it: DICOM Query → client.search; DICOM Retrieve → client.metadata /
// retrieveInstances(sink = the org's R2 prefix) / rendered / thumbnail; DICOM Store →
// client.store (planStow in test_mode); Imaging Study link → imagingStudyFromDicom, then a
// conditional update on imagingStudyCondition(uid). See docs/dicomweb.md.
export { type DicomTarget, DicomwebClient, type InstanceSink, type RenderedImage, type StoredObject } from "./client";
export { type DicomJsonDataset, type DicomJsonElement, datasetsOf, firstNumber, firstText, TAG } from "./dicom-json";
export { DicomwebError, type DicomwebErrorCode } from "./errors";
export {
  DCM_SYSTEM,
  DICOM_UID_SYSTEM,
  dicomwebEndpoint,
  type ImagingStudy,
  type ImagingStudyOptions,
  imagingStudyCondition,
  imagingStudyFromDicom,
  studyIdentifier,
} from "./imaging-study";
export { multipartTypeOf } from "./multipart/media-type";
export { type MultipartPart, readMultipart, readMultipartBody } from "./multipart/reader";
export { type OutgoingPart, writeMultipart } from "./multipart/writer";
export { part10Dataset } from "./part10";
export type { QidoLevel, QidoQuery } from "./qido";
export { type PlannedInstance, planStow } from "./store-plan";
export type { FailedSop, StoredSop, StowResult } from "./stow";
export { type DicomwebAuth, type DicomwebTransport, dicomwebTransportFor, guardedTransport } from "./transport";
