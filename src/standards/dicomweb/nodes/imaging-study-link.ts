// ImagingStudy link: QIDO results or WADO metadata → one FHIR ImagingStudy per study in the
// organization's store, written with a conditional update on its StudyInstanceUID (so a
// re-run updates, never duplicates), its subject the Patient found by PatientID under the
// configured identifier system (created from PatientName when the pipeline says so), and
// an Endpoint for the connector's DICOMweb root when a connector is named.
import { z } from "zod";
import type { Bundle, BundleEntry, Resource } from "../../../platform/fhir-resource";
import { defineNode } from "../../../features/pipelines";
import { ApiError } from "../../../platform/errors";
import { uuidV5, URL_NAMESPACE } from "../../../platform/name-uuid";
import { type DicomJsonDataset, firstText, TAG } from "../dicom-json";
import { dicomInvalid } from "../errors";
import { dicomwebEndpoint, imagingStudyCondition, imagingStudyFromDicom } from "../imaging-study";
import { datasetsIn } from "./connection";

/** The identifier system of the Endpoint made for a connector: one Endpoint per connector. */
export const CONNECTOR_ENDPOINT_SYSTEM = "urn:cdis:dicomweb-connector";

/** DICOM PN (Family^Given^Middle^Prefix^Suffix) as a FHIR HumanName. */
function humanName(pn: string | undefined) {
  if (!pn) return undefined;
  const [family, given, middle, prefix, suffix] = pn.split("^").map((p) => p.trim());
  const name: Record<string, unknown> = {};
  if (family) name.family = family;
  const givens = [given, middle].filter(Boolean);
  if (givens.length) name.given = givens;
  if (prefix) name.prefix = [prefix];
  if (suffix) name.suffix = [suffix];
  return Object.keys(name).length ? [name] : undefined;
}

const urn = (...parts: string[]) => `urn:uuid:${uuidV5(parts.join("|"), URL_NAMESPACE)}`;

export const imagingStudyLink = defineNode({
  id: "dicom.imaging_study_link",
  name: "ImagingStudy link",
  category: "healthcare",
  description:
    "Creates or updates a FHIR ImagingStudy per study from DICOM query results or retrieve metadata (identifiers, series, instances, modalities, started, numberOf*, endpoint), linked to the Patient found by PatientID, or created when allowed. Idempotent on the StudyInstanceUID.",
  keywords: ["dicom", "imagingstudy", "fhir", "imaging", "pacs", "link", "patient", "radiology", "study"],
  inputs: [{ name: "metadata", type: "json", description: "DICOM query's output, DICOM retrieve's metadata, or DICOM JSON datasets" }],
  outputs: [{ name: "output", type: "json", description: "{studies: [{study_uid, imaging_study, patient}], bundle, response}" }],
  config: z
    .object({
      patient_identifier_system: z.string().min(1).max(300).describe("The system PatientID (00100020) values belong to, e.g. the hospital's MRN system"),
      create_patient: z.boolean().default(false).describe("Create the Patient (identifier and name from the DICOM data) when none has the identifier"),
      connector_id: z.string().min(1).optional().describe("The dicomweb connector the study came from: linked as the study's Endpoint"),
      store: z.boolean().default(true).describe("Write to the FHIR store; false only maps"),
    })
    .strict(),
  documentation: {
    summary:
      "One transaction per run: the Endpoint and any created Patient conditionally created, each ImagingStudy PUT ImagingStudy?identifier=urn:dicom:uid|urn:oid:<uid>. Errors: DICOM_PATIENT_NOT_FOUND (no Patient with the identifier and create_patient false), DICOM_INVALID (no StudyInstanceUID or PatientID).",
    example: { config: { patient_identifier_system: "urn:oid:1.2.36.146.595.217.0.1", create_patient: true }, outputs: { output: { studies: [{ study_uid: "1.2.3", imaging_study: "ImagingStudy/…", patient: "Patient/…" }] } } },
  },
  run: async (ctx) => {
    const c = ctx.config;
    const byStudy = new Map<string, DicomJsonDataset[]>();
    for (const ds of datasetsIn(ctx.inputs.metadata)) {
      const uid = firstText(ds, TAG.StudyInstanceUID) as string;
      byStudy.set(uid, [...(byStudy.get(uid) ?? []), ds]);
    }
    const fhir = ctx.services.fhir();
    const entries: BundleEntry[] = [];
    let endpoint: { reference: string } | undefined;
    if (c.connector_id) {
      const address = await ctx.services.connectors.endpoint(c.connector_id);
      const fullUrl = urn(ctx.orgId, "endpoint", c.connector_id);
      const resource = { ...dicomwebEndpoint(address, "DICOMweb"), identifier: [{ system: CONNECTOR_ENDPOINT_SYSTEM, value: c.connector_id }] };
      entries.push({ fullUrl, resource, request: { method: "PUT", url: `Endpoint?identifier=${encodeURIComponent(`${CONNECTOR_ENDPOINT_SYSTEM}|${c.connector_id}`)}` } });
      endpoint = { reference: fullUrl };
    }
    const patients = new Map<string, string>();
    const studies: { study_uid: string; fullUrl: string; patientRef: string }[] = [];
    for (const [uid, datasets] of byStudy) {
      const patientId = datasets.map((ds) => firstText(ds, TAG.PatientID)).find(Boolean);
      if (!patientId) throw dicomInvalid(`Study ${uid} has no PatientID (00100020) to link it to a Patient`);
      let patientRef = patients.get(patientId);
      if (!patientRef) {
        const query = `identifier=${encodeURIComponent(`${c.patient_identifier_system}|${patientId}`)}`;
        const found = (await fhir.search("Patient", `${query}&_count=1`)).entry?.find((e) => e.resource?.id)?.resource;
        if (found) patientRef = `Patient/${found.id}`;
        else if (c.create_patient) {
          patientRef = urn(ctx.orgId, "patient", c.patient_identifier_system, patientId);
          const name = humanName(datasets.map((ds) => firstText(ds, TAG.PatientName)).find(Boolean));
          entries.push({ fullUrl: patientRef, resource: { resourceType: "Patient", identifier: [{ system: c.patient_identifier_system, value: patientId }], ...(name ? { name } : {}) }, request: { method: "POST", url: "Patient", ifNoneExist: query } });
        } else throw new ApiError(422, "DICOM_PATIENT_NOT_FOUND", `No Patient has identifier ${c.patient_identifier_system}|${patientId} (study ${uid}); set create_patient to create it`);
        patients.set(patientId, patientRef);
      }
      const study = imagingStudyFromDicom(datasets, { subject: { reference: patientRef }, ...(endpoint ? { endpoint: [endpoint] } : {}) });
      const fullUrl = urn(ctx.orgId, "imaging-study", uid);
      entries.push({ fullUrl, resource: study as unknown as Resource, request: { method: "PUT", url: `ImagingStudy?${imagingStudyCondition(uid)}` } });
      studies.push({ study_uid: uid, fullUrl, patientRef });
    }
    const bundle: Bundle = { resourceType: "Bundle", type: "transaction", entry: entries };
    if (!c.store) return { outputs: { output: { studies: studies.map((s) => ({ study_uid: s.study_uid })), bundle } } };
    if (ctx.testMode) {
      ctx.wouldWrite("fhir:transaction", bundle);
      return { outputs: { output: { studies: studies.map((s) => ({ study_uid: s.study_uid })), bundle } } };
    }
    const response = await fhir.batch(bundle);
    // The response lists entries in request order: each location names the stored resource.
    const located = new Map(entries.map((e, i) => [e.fullUrl as string, response.entry?.[i]?.response?.location?.split("/_history")[0]]));
    const out = studies.map((s) => ({ study_uid: s.study_uid, imaging_study: located.get(s.fullUrl) ?? null, patient: s.patientRef.startsWith("urn:") ? (located.get(s.patientRef) ?? null) : s.patientRef }));
    return { outputs: { output: { studies: out, response } } };
  },
});
