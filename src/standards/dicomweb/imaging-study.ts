// DICOM JSON → FHIR R4 ImagingStudy (pure). Input: the datasets of one study, as WADO-RS
// metadata gives them (one per instance) or QIDO answers them (study, series or instance
// level); output: the ImagingStudy with its series and instances. The study's identity is
// its StudyInstanceUID, written as identifier urn:dicom:uid | urn:oid:<uid> (FHIR R4's own
// examples), which is also the key of an idempotent write: see `imagingStudyCondition`.
import { type DicomJsonDataset, firstNumber, firstText, TAG, texts } from "./dicom-json";
import { dicomInvalid } from "./errors";
import { isUid } from "./uid";

export const DICOM_UID_SYSTEM = "urn:dicom:uid";
export const DCM_SYSTEM = "http://dicom.nema.org/resources/ontology/DCM";
const ACCESSION_TYPE = { coding: [{ system: "http://terminology.hl7.org/CodeSystem/v2-0203", code: "ACSN" }] };

export interface Reference {
  reference?: string;
  display?: string;
  type?: string;
}

interface Coding {
  system: string;
  code: string;
}

export interface ImagingStudyInstance {
  uid: string;
  sopClass: Coding;
  number?: number;
}

export interface ImagingStudySeries {
  uid: string;
  number?: number;
  modality: Coding;
  description?: string;
  numberOfInstances?: number;
  started?: string;
  instance?: ImagingStudyInstance[];
}

export interface ImagingStudy {
  resourceType: "ImagingStudy";
  id?: string;
  identifier: { system?: string; value: string; type?: typeof ACCESSION_TYPE }[];
  status: "registered" | "available" | "cancelled" | "entered-in-error" | "unknown";
  modality?: Coding[];
  subject: Reference;
  started?: string;
  endpoint?: Reference[];
  numberOfSeries?: number;
  numberOfInstances?: number;
  description?: string;
  series?: ImagingStudySeries[];
}

export interface ImagingStudyOptions {
  /** The Patient (or Group, Device) the study is about, found or created by the caller. */
  subject: Reference;
  /** Endpoint resources the study can be retrieved from (see `dicomwebEndpoint`). */
  endpoint?: Reference[];
  /** Offset for dates without TimezoneOffsetFromUTC ("Z", "+01:00"); without it such a start is a date only. */
  timezone?: string;
  status?: ImagingStudy["status"];
}

/** The identifier of the study with this StudyInstanceUID. */
export const studyIdentifier = (studyUid: string) => ({ system: DICOM_UID_SYSTEM, value: `urn:oid:${studyUid}` });

/** The search a conditional update uses (`PUT ImagingStudy?<this>`): one study per UID, however often it runs. */
export const imagingStudyCondition = (studyUid: string): string =>
  `identifier=${encodeURIComponent(`${DICOM_UID_SYSTEM}|urn:oid:${studyUid}`)}`;

const defined = <T extends object>(o: T): T => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;

/** DICOM TimezoneOffsetFromUTC (+HHMM) as a FHIR offset (+HH:MM). */
function offsetOf(ds: DicomJsonDataset, fallback: string | undefined): string | undefined {
  const tz = firstText(ds, TAG.TimezoneOffsetFromUTC);
  const m = tz ? /^([+-])(\d{2})(\d{2})$/.exec(tz) : null;
  return m ? `${m[1]}${m[2]}:${m[3]}` : fallback;
}

/** A DA (YYYYMMDD) and TM (HH[MM[SS[.F]]]) as a FHIR dateTime; the time needs an offset. */
export function dicomDateTime(date: string | undefined, time: string | undefined, offset: string | undefined): string | undefined {
  const d = date ? /^(\d{4})(\d{2})(\d{2})$/.exec(date.trim()) : null;
  if (!d) return undefined;
  const day = `${d[1]}-${d[2]}-${d[3]}`;
  const t = time ? /^(\d{2})(\d{2})?(\d{2})?(\.\d{1,6})?$/.exec(time.trim()) : null;
  if (!t || offset === undefined) return day;
  return `${day}T${t[1]}:${t[2] ?? "00"}:${t[3] ?? "00"}${t[3] ? (t[4] ?? "") : ""}${offset}`;
}

const byNumberThenUid = (a: { number?: number; uid: string }, b: { number?: number; uid: string }) =>
  (a.number ?? Number.MAX_SAFE_INTEGER) - (b.number ?? Number.MAX_SAFE_INTEGER) || a.uid.localeCompare(b.uid);

function uidOf(ds: DicomJsonDataset, tag: string, what: string): string | undefined {
  const uid = firstText(ds, tag);
  if (uid !== undefined && !isUid(uid)) throw dicomInvalid(`${what} "${uid}" is not a DICOM UID`);
  return uid;
}

/** The ImagingStudy of one study's DICOM JSON datasets; DICOM_INVALID when they are not one study. */
export function imagingStudyFromDicom(datasets: readonly DicomJsonDataset[], options: ImagingStudyOptions): ImagingStudy {
  const studyUids = new Set(datasets.map((ds) => uidOf(ds, TAG.StudyInstanceUID, "StudyInstanceUID")));
  if (!datasets.length || studyUids.has(undefined)) throw dicomInvalid("Every dataset needs a StudyInstanceUID (0020000D)");
  if (studyUids.size > 1) throw dicomInvalid(`The datasets belong to ${studyUids.size} studies; map one study at a time`);
  const studyUid = [...studyUids][0] as string;
  const first = <T>(read: (ds: DicomJsonDataset) => T | undefined): T | undefined => {
    for (const ds of datasets) {
      const v = read(ds);
      if (v !== undefined) return v;
    }
    return undefined;
  };

  const series = new Map<string, { ds: DicomJsonDataset; instances: Map<string, ImagingStudyInstance> }>();
  for (const ds of datasets) {
    const seriesUid = uidOf(ds, TAG.SeriesInstanceUID, "SeriesInstanceUID");
    if (seriesUid === undefined) continue; // a study-level (QIDO) dataset
    const entry = series.get(seriesUid) ?? { ds, instances: new Map() };
    series.set(seriesUid, entry);
    const sopUid = uidOf(ds, TAG.SOPInstanceUID, "SOPInstanceUID");
    if (sopUid === undefined) continue; // a series-level dataset
    const sopClass = uidOf(ds, TAG.SOPClassUID, "SOPClassUID");
    if (sopClass === undefined) throw dicomInvalid(`Instance ${sopUid} has no SOPClassUID (00080016)`);
    entry.instances.set(sopUid, defined({ uid: sopUid, sopClass: { system: "urn:ietf:rfc:3986", code: `urn:oid:${sopClass}` }, number: firstNumber(ds, TAG.InstanceNumber) }));
  }

  const mappedSeries = [...series.entries()]
    .map(([uid, { ds, instances }]): ImagingStudySeries => {
      const list = [...instances.values()].sort(byNumberThenUid);
      return defined({
        uid,
        number: firstNumber(ds, TAG.SeriesNumber),
        // Modality is 1..1 in FHIR; OT ("other") is DICOM's own code for an unstated one.
        modality: { system: DCM_SYSTEM, code: firstText(ds, TAG.Modality) ?? "OT" },
        description: firstText(ds, TAG.SeriesDescription),
        numberOfInstances: list.length || firstNumber(ds, TAG.NumberOfSeriesRelatedInstances),
        started: dicomDateTime(firstText(ds, TAG.SeriesDate), firstText(ds, TAG.SeriesTime), offsetOf(ds, options.timezone)),
        instance: list.length ? list : undefined,
      });
    })
    .sort(byNumberThenUid);

  const modalities = new Set(mappedSeries.map((s) => s.modality.code));
  if (!mappedSeries.length) for (const ds of datasets) for (const m of texts(ds, TAG.ModalitiesInStudy)) modalities.add(m);
  const accession = first((ds) => firstText(ds, TAG.AccessionNumber));
  const instanceCount = mappedSeries.reduce((n, s) => n + (s.instance?.length ?? 0), 0);
  const dated = datasets.find((ds) => firstText(ds, TAG.StudyDate) !== undefined);

  return defined<ImagingStudy>({
    resourceType: "ImagingStudy",
    identifier: [studyIdentifier(studyUid), ...(accession ? [{ type: ACCESSION_TYPE, value: accession }] : [])],
    status: options.status ?? "available",
    modality: modalities.size ? [...modalities].sort().map((code) => ({ system: DCM_SYSTEM, code })) : undefined,
    subject: options.subject,
    started: dated ? dicomDateTime(firstText(dated, TAG.StudyDate), firstText(dated, TAG.StudyTime), offsetOf(dated, options.timezone)) : undefined,
    endpoint: options.endpoint?.length ? options.endpoint : undefined,
    numberOfSeries: mappedSeries.length || first((ds) => firstNumber(ds, TAG.NumberOfStudyRelatedSeries)),
    numberOfInstances: instanceCount || first((ds) => firstNumber(ds, TAG.NumberOfStudyRelatedInstances)),
    description: first((ds) => firstText(ds, TAG.StudyDescription)),
    series: mappedSeries.length ? mappedSeries : undefined,
  });
}

/** An Endpoint resource for a DICOMweb server (WADO-RS), for ImagingStudy.endpoint to point at. */
export function dicomwebEndpoint(baseUrl: string, name?: string) {
  return defined({
    resourceType: "Endpoint" as const,
    status: "active" as const,
    connectionType: { system: "http://terminology.hl7.org/CodeSystem/endpoint-connection-type", code: "dicom-wado-rs" },
    name,
    payloadType: [{ text: "DICOM" }],
    payloadMimeType: ["application/dicom"],
    address: baseUrl,
  });
}
