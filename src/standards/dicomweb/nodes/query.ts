// DICOM Query: QIDO-RS searches for studies, series or instances by patient id or name,
// study date range, modality, study/series UID and accession number, with paging and
// includefield. Criteria from the config; an input object can add or override them.
import { z } from "zod";
import { defineNode } from "../../../features/pipelines";
import { ApiError } from "../../../platform/errors";
import type { QidoQuery } from "../qido";
import { clientFor } from "./connection";

const Criteria = z
  .object({
    patient_id: z.string().min(1).max(64).optional(),
    patient_name: z.string().min(1).max(200).optional().describe("PN matching; * and ? are wildcards (Doe^J*)"),
    study_date: z.union([z.string(), z.object({ from: z.string().optional(), to: z.string().optional() }).strict()]).optional().describe("YYYYMMDD or YYYY-MM-DD, or {from, to}"),
    modality: z.string().min(1).max(16).optional(),
    study_instance_uid: z.string().min(1).max(64).optional(),
    series_instance_uid: z.string().min(1).max(64).optional(),
    accession_number: z.string().min(1).max(64).optional(),
  })
  .strict();
type Criteria = z.infer<typeof Criteria>;

function inputCriteria(value: unknown): Criteria {
  if (value === undefined) return {};
  const parsed = Criteria.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw new ApiError(400, "DICOM_INPUT_INVALID", `The criteria input: ${issue?.path.join(".") || "(root)"} ${issue?.message}`);
}

function qidoQuery(c: Criteria, paging: { limit?: number; offset?: number; includefield?: string[]; fuzzymatching?: boolean }): QidoQuery {
  const q: QidoQuery = {};
  if (c.patient_id) q.patientId = c.patient_id;
  if (c.patient_name) q.patientName = c.patient_name;
  if (c.study_date) q.studyDate = c.study_date;
  if (c.modality) q.modality = c.modality;
  if (c.study_instance_uid) q.studyInstanceUid = c.study_instance_uid;
  if (c.series_instance_uid) q.seriesInstanceUid = c.series_instance_uid;
  if (c.accession_number) q.accessionNumber = c.accession_number;
  if (paging.limit !== undefined) q.limit = paging.limit;
  if (paging.offset !== undefined) q.offset = paging.offset;
  if (paging.includefield?.length) q.includefield = paging.includefield.includes("all") ? "all" : paging.includefield;
  if (paging.fuzzymatching) q.fuzzymatching = true;
  return q;
}

export const dicomQuery = defineNode({
  id: "dicom.query",
  name: "DICOM query (QIDO-RS)",
  category: "healthcare",
  description:
    "Searches a DICOMweb server (dicomweb connector) for studies, series or instances by patient id, patient name, study date range, modality, study or series instance UID and accession number, with limit/offset paging and includefield.",
  keywords: ["dicom", "dicomweb", "qido", "pacs", "imaging", "radiology", "query", "search", "study", "series"],
  inputs: [{ name: "criteria", type: "json", description: "Optional: criteria (same names as the config) that add to or override the config's" }],
  outputs: [{ name: "output", type: "json", description: "{results: DICOM JSON datasets, count, level}" }],
  config: z
    .object({
      connector_id: z.string().min(1).describe("A dicomweb connector"),
      level: z.enum(["studies", "series", "instances"]).default("studies"),
      criteria: Criteria.default({}),
      limit: z.number().int().min(1).max(1000).default(100),
      offset: z.number().int().min(0).optional(),
      includefield: z.array(z.string().max(64)).max(50).optional().describe("Tags (8 hex digits) or keywords to add, or [\"all\"]"),
      fuzzymatching: z.boolean().default(false),
    })
    .strict(),
  documentation: {
    summary: "Connect the output to DICOM retrieve (each result is a target) or to ImagingStudy link. Errors: DICOMWEB_INVALID_REQUEST (bad criterion, nothing sent), DICOMWEB_UNREACHABLE, DICOMWEB_UNAUTHORIZED, DICOMWEB_NOT_FOUND.",
    example: { config: { connector_id: "6f1c…", level: "studies", criteria: { patient_id: "PAT-1", study_date: { from: "2024-01-01" }, modality: "CT" }, limit: 20 }, outputs: { output: { level: "studies", count: 1, results: [{ "0020000D": { vr: "UI", Value: ["1.2.3"] } }] } } },
  },
  run: async (ctx) => {
    const fromInput = inputCriteria(ctx.inputs.criteria);
    const c = ctx.config;
    const client = await clientFor(ctx);
    const results = await client.search(c.level, qidoQuery({ ...c.criteria, ...fromInput }, { limit: c.limit, ...(c.offset === undefined ? {} : { offset: c.offset }), ...(c.includefield ? { includefield: c.includefield } : {}), fuzzymatching: c.fuzzymatching }));
    return { outputs: { output: { level: c.level, count: results.length, results } } };
  },
});
