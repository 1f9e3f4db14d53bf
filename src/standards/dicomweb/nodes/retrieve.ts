// DICOM Retrieve: WADO-RS metadata as DICOM JSON, or instances / rendered images /
// thumbnails streamed into the organization's files (R2) with their keys in the output:
// run state holds references, never the pixel data.
import { z } from "zod";
import { defineNode } from "../../../features/pipelines";
import type { StoredFile } from "../../../features/pipelines";
import type { DicomJsonDataset } from "../dicom-json";
import type { DicomTarget, InstanceSink } from "../client";
import { counting } from "../multipart/bytes";
import { clientFor, targetsOf } from "./connection";

const IMAGE_EXTENSION: Record<string, string> = { "image/jpeg": ".jpg", "image/png": ".png", "image/gif": ".gif" };

export interface RetrievedFile extends StoredFile {
  study: string;
  series?: string;
  instance?: string;
}

const where = (t: DicomTarget) => ({ study: t.study, ...(t.series ? { series: t.series } : {}), ...(t.instance ? { instance: t.instance } : {}) });

export const dicomRetrieve = defineNode({
  id: "dicom.retrieve",
  name: "DICOM retrieve (WADO-RS)",
  category: "healthcare",
  description:
    "Retrieves from a DICOMweb server (dicomweb connector) the metadata (DICOM JSON) of studies, series or instances, or their instances (Part-10 files), rendered images or thumbnails, which are streamed into the organization's files (R2) and passed on as keys.",
  keywords: ["dicom", "dicomweb", "wado", "retrieve", "pacs", "imaging", "metadata", "instances", "thumbnail", "rendered"],
  inputs: [{ name: "targets", type: "json", description: "DICOM query's output, DICOM JSON datasets, or {study, series?, instance?} targets; ignored when the config names a study" }],
  outputs: [
    { name: "metadata", type: "json", description: "what = metadata: {metadata: DICOM JSON datasets (one per instance)}" },
    { name: "files", type: "json", description: "what = instances, rendered or thumbnail: {files: [{key, bytes, contentType, study, series?, instance?}]}" },
  ],
  outputsFor: (config) => [(config as { what?: string }).what === "metadata" ? { name: "metadata", type: "json" } : { name: "files", type: "json" }],
  config: z
    .object({
      connector_id: z.string().min(1).describe("A dicomweb connector"),
      what: z.enum(["metadata", "instances", "rendered", "thumbnail"]).default("metadata"),
      level: z.enum(["study", "series", "instance"]).default("study").describe("Which UIDs of each input dataset name the target"),
      study_instance_uid: z.string().max(64).optional().describe("The target; when set, the input is not read"),
      series_instance_uid: z.string().max(64).optional(),
      sop_instance_uid: z.string().max(64).optional(),
      accept: z.enum(["image/jpeg", "image/png", "image/gif"]).default("image/jpeg").describe("Rendered and thumbnail media type"),
    })
    .strict(),
  documentation: {
    summary:
      "Files are kept under dicom/<execution>/<node>/<study>/<n>.dcm; DICOM store takes this output as its input. Test mode reads metadata but stores no files (it reports what it would store). Errors: DICOMWEB_NOT_FOUND (no such study), DICOMWEB_NOT_SUPPORTED (no rendered images), DICOMWEB_UNREACHABLE.",
    example: { config: { connector_id: "6f1c…", what: "instances" }, outputs: { files: { files: [{ key: "dicom/ex1/retrieve/1.2.3/1.dcm", bytes: 525312, contentType: "application/dicom", study: "1.2.3" }] } } },
  },
  run: async (ctx) => {
    const c = ctx.config;
    // UIDs in the config name the target; otherwise the input does.
    const input = c.study_instance_uid ? { study: c.study_instance_uid, series: c.series_instance_uid, instance: c.sop_instance_uid } : ctx.inputs.targets;
    const targets = targetsOf(input, c.level);
    const client = await clientFor(ctx);
    if (c.what === "metadata") {
      const metadata: DicomJsonDataset[] = [];
      for (const t of targets) metadata.push(...(await client.metadata(t)));
      return { outputs: { metadata: { metadata } } };
    }
    const prefix = `dicom/${ctx.executionId}/${ctx.nodeId}/`;
    const files: RetrievedFile[] = [];
    // Test mode: the bytes are read and counted, not stored.
    const sink: InstanceSink = {
      put: async (key, body, { contentType }) => {
        if (!ctx.testMode) return void (await ctx.services.files.put(key, body, { contentType, origin: { executionId: ctx.executionId, nodeId: ctx.nodeId } }));
        let bytes = 0;
        for await (const chunk of body) bytes += chunk.byteLength;
        ctx.wouldWrite(`files:${key}`, { contentType, bytes });
      },
    };
    for (const [n, t] of targets.entries()) {
      if (c.what === "instances") {
        for (const f of await client.retrieveInstances(t, sink, prefix)) files.push({ key: f.key, bytes: f.bytes, contentType: f.contentType, ...where(t) });
        continue;
      }
      const image = c.what === "rendered" ? await client.rendered(t, c.accept) : await client.thumbnail(t, c.accept);
      const key = `${prefix}${t.study}/${c.what}-${n + 1}${IMAGE_EXTENSION[c.accept] ?? ""}`;
      const counted = counting(image.body);
      await sink.put(key, counted.stream, { contentType: image.contentType });
      const bytes = counted.bytes();
      files.push({ key, bytes, contentType: image.contentType, ...where(t) });
    }
    return { outputs: { files: { files } } };
  },
});
