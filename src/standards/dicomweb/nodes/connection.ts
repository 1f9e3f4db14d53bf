// What every DICOM node shares: a DicomwebClient over the node's connector (the connector
// client adds its auth and goes through the outbound guard), and the studies, series or
// instances a node works on, read from its config or its input (a {study, series, instance}
// target, a DICOM JSON dataset, a list of either, or DICOM query's output).
import type { NodeContext } from "../../../features/pipelines";
import { ApiError } from "../../../platform/errors";
import { DicomwebClient, type DicomTarget } from "../client";
import { type DicomJsonDataset, firstText, TAG } from "../dicom-json";
import { invalidRequest, networkFailure } from "../errors";
import type { DicomwebTransport } from "../transport";

/** How many studies, series or instances one node run may work on. */
export const MAX_TARGETS = 200;

/** A client for the connector's DICOMweb root; network failures are DICOMWEB_UNREACHABLE. */
export async function clientFor(ctx: NodeContext<{ connector_id: string }>): Promise<DicomwebClient> {
  const id = ctx.config.connector_id;
  const base = await ctx.services.connectors.endpoint(id);
  const transport: DicomwebTransport = async (url, init) => {
    try {
      return await ctx.services.connectors.fetch(id, url, { ...init, signal: ctx.signal });
    } catch (e) {
      if (e instanceof ApiError) throw e;
      throw networkFailure(url, e);
    }
  };
  return new DicomwebClient(base, transport);
}

export type TargetLevel = "study" | "series" | "instance";

const isDataset = (v: unknown): v is DicomJsonDataset => typeof v === "object" && v !== null && !Array.isArray(v) && (TAG.StudyInstanceUID in v || TAG.StudyInstanceUID.toLowerCase() in v);

function targetOf(v: unknown, level: TargetLevel): DicomTarget {
  if (isDataset(v)) {
    const study = firstText(v, TAG.StudyInstanceUID) as string;
    const series = level === "study" ? undefined : firstText(v, TAG.SeriesInstanceUID);
    const instance = level === "instance" ? firstText(v, TAG.SOPInstanceUID) : undefined;
    if (level !== "study" && !series) throw invalidRequest(`A ${level}-level target needs SeriesInstanceUID (0020000E) in its dataset`);
    if (level === "instance" && !instance) throw invalidRequest("An instance-level target needs SOPInstanceUID (00080018) in its dataset");
    return { study, ...(series ? { series } : {}), ...(instance ? { instance } : {}) };
  }
  const t = v as Partial<DicomTarget> | undefined;
  if (t && typeof t.study === "string") return { study: t.study, ...(typeof t.series === "string" ? { series: t.series } : {}), ...(typeof t.instance === "string" ? { instance: t.instance } : {}) };
  throw new ApiError(400, "DICOM_TARGET_INVALID", "A target must be {study, series?, instance?} or a DICOM JSON dataset with StudyInstanceUID (0020000D)");
}

/** The distinct targets of an input value (query output, datasets, targets), at most MAX_TARGETS. */
export function targetsOf(value: unknown, level: TargetLevel): DicomTarget[] {
  const list = Array.isArray(value) ? value : value && typeof value === "object" && Array.isArray((value as { results?: unknown }).results) ? (value as { results: unknown[] }).results : [value];
  const seen = new Map<string, DicomTarget>();
  for (const item of list) {
    const t = targetOf(item, level);
    seen.set(`${t.study}/${t.series ?? ""}/${t.instance ?? ""}`, t);
  }
  if (seen.size > MAX_TARGETS) throw new ApiError(400, "DICOM_TOO_MANY_TARGETS", `${seen.size} targets; one run takes at most ${MAX_TARGETS} (page the query with limit and offset)`);
  return [...seen.values()];
}

/** The DICOM JSON datasets of an input value: a list, query output ({results}) or retrieve output ({metadata}). */
export function datasetsIn(value: unknown): DicomJsonDataset[] {
  const v = value as { results?: unknown; metadata?: unknown } | undefined;
  const list = Array.isArray(value) ? value : Array.isArray(v?.results) ? v.results : Array.isArray(v?.metadata) ? v.metadata : undefined;
  if (!list?.every(isDataset)) throw new ApiError(400, "DICOM_INPUT_INVALID", "The input must be DICOM JSON datasets with StudyInstanceUID: DICOM query results or DICOM retrieve metadata");
  return list as DicomJsonDataset[];
}
