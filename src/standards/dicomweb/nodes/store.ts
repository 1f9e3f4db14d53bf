// DICOM Store: STOW-RS of Part-10 files from the organization's files (DICOM retrieve's
// output, or keys) in one multipart/related request, streamed from R2; reports per instance
// what the server stored and what it refused. Test mode sends nothing and reports, from each
// file's own tags, what it would send.
import { z } from "zod";
import { defineNode } from "../../../features/pipelines";
import { ApiError } from "../../../platform/errors";
import { PART10_HEADER_BYTES } from "../part10";
import { checkStow, planStow } from "../store-plan";
import { clientFor, MAX_TARGETS } from "./connection";

/** The file keys of an input value: retrieve's output ({files}), a list of {key} or of keys. */
export function fileKeys(value: unknown): string[] {
  const v = value as { files?: unknown } | undefined;
  const list = Array.isArray(value) ? value : Array.isArray(v?.files) ? v.files : typeof value === "string" ? [value] : undefined;
  const keys = list?.map((f) => (typeof f === "string" ? f : typeof (f as { key?: unknown })?.key === "string" ? (f as { key: string }).key : undefined));
  if (!keys?.length || keys.some((k) => k === undefined)) throw new ApiError(400, "DICOM_INPUT_INVALID", "The files input must be DICOM retrieve's files output, a list of {key}, or file keys");
  if (keys.length > MAX_TARGETS * 10) throw new ApiError(400, "DICOM_TOO_MANY_TARGETS", `${keys.length} files; one STOW takes at most ${MAX_TARGETS * 10}`);
  return keys as string[];
}

/** The default and the largest max_bytes: what one STOW request may carry. */
export const DEFAULT_STOW_BYTES = 512 * 1024 * 1024;
export const MAX_STOW_BYTES = 4 * 1024 * 1024 * 1024;

export const dicomStore = defineNode({
  id: "dicom.store",
  name: "DICOM store (STOW-RS)",
  category: "healthcare",
  description:
    "Stores DICOM instances (Part-10 files from the organization's files, e.g. DICOM retrieve's output) on a DICOMweb server (dicomweb connector) with one STOW-RS request, streamed, and reports which instances were stored and which refused, with the server's reasons.",
  keywords: ["dicom", "dicomweb", "stow", "store", "upload", "pacs", "imaging", "send", "route"],
  inputs: [{ name: "files", type: "json", description: "DICOM retrieve's files output, or file keys" }],
  outputs: [{ name: "output", type: "json", description: "{stored: [{sopInstanceUid, sopClassUid, retrieveUrl}], failed: [{sopInstanceUid, reason, reasonText}], warnings}" }],
  config: z
    .object({
      connector_id: z.string().min(1).describe("A dicomweb connector"),
      study_instance_uid: z.string().max(64).optional().describe("POST to studies/{uid}: the server refuses instances of another study"),
      fail_on_partial: z.boolean().default(false).describe("Fail with DICOMWEB_CONFLICT when some (not all) instances were refused"),
      max_bytes: z
        .number()
        .int()
        .min(1)
        .max(MAX_STOW_BYTES)
        .default(DEFAULT_STOW_BYTES)
        .describe("The most the files may hold together; more fails with DICOMWEB_TOO_LARGE before anything is sent. Keep it under the server's own request limit"),
    })
    .strict(),
  documentation: {
    summary:
      "Checked before sending: every file must be Part-10 (else DICOM_INVALID, 400) and all together at most max_bytes (else DICOMWEB_TOO_LARGE, 413); nothing is sent then. A STOW the server refuses entirely fails with DICOMWEB_CONFLICT (409, reasons per instance as details), DICOMWEB_TOO_LARGE (the server's 413) or DICOMWEB_REJECTED; a partial store is an output with `failed` (fail_on_partial turns it into DICOMWEB_CONFLICT). A connection that drops after sending began is DICOMWEB_CONNECTION_LOST (502, retryable: give the node a retry policy), one that cannot be made DICOMWEB_UNREACHABLE. With on_error: route each goes to the error port. Test mode reports {planned: [{studyInstanceUid, sopInstanceUid, bytes}]} as a would-write to dicomweb:<connector_id>.",
    example: { config: { connector_id: "6f1c…" }, outputs: { output: { stored: [{ sopInstanceUid: "1.2.3.4.5.6" }], failed: [] } } },
  },
  run: async (ctx) => {
    const keys = fileKeys(ctx.inputs.files);
    const heads = [];
    for (const key of keys) heads.push(await ctx.services.files.peek(key, PART10_HEADER_BYTES));
    checkStow(heads, ctx.config.max_bytes);
    const client = await clientFor(ctx);
    if (ctx.testMode) {
      const files: Uint8Array[] = [];
      for (const key of keys) files.push(new Uint8Array(await new Response((await ctx.services.files.get(key)).body).arrayBuffer()));
      const planned = planStow(files);
      ctx.wouldWrite(`dicomweb:${ctx.config.connector_id}`, { study: ctx.config.study_instance_uid ?? null, planned });
      return { outputs: { output: { planned, stored: [], failed: [] } } };
    }
    const files = ctx.services.files;
    async function* bodies() {
      for (const key of keys) yield (await files.get(key)).body;
    }
    const result = await client.store(bodies, ctx.config.study_instance_uid);
    if (ctx.config.fail_on_partial && result.failed.length) {
      throw new ApiError(409, "DICOMWEB_CONFLICT", `The server refused ${result.failed.length} of ${keys.length} instances: ${result.failed.map((f) => f.reasonText).join("; ")}`);
    }
    return { outputs: { output: result } };
  },
});
