// /api/v1/files: the files pipeline nodes keep in R2 (retrieved DICOM instances and images,
// X12 payloads): upload, list by pipeline or execution, metadata, download (streamed), delete (admin).
import { createRoute, z } from "@hono/zod-openapi";
import type { HttpEnv } from "../../../platform/http/http-env";
import { createRouter } from "../../../platform/http/router";
import { commonErrors, json, notFoundError, pageOf, security, tooLargeError } from "../../../platform/http/schemas";
import { requirePermission } from "../../tenancy";
import { FileIdParam, FileListQuery, FileSummary, FileUploadBody, presentFile } from "../schemas";
import { deleteFile, getFile, listFiles, openFile, uploadFile } from "../use-cases/files";
import { audited, byId, newId } from "../../audit";

const tags = ["Files"];
const read = requirePermission("pipelines:read");
const write = requirePermission("pipelines:execute");
const manage = requirePermission("pipelines:manage");

/** A download's file name: the key's last segment, with only characters safe in a quoted header value. */
const fileName = (key: string) => (key.split("/").pop() ?? "file").replace(/[^A-Za-z0-9._-]/g, "_");

export const fileRoutes = createRouter<HttpEnv>()
  .openapi(
    createRoute({
      method: "get",
      operationId: "listFiles",
      path: "/",
      tags,
      summary: "Files nodes stored (DICOM instances, images, X12 payloads), newest first",
      description: "Filter by `pipeline_id` or `execution_id`. The bytes are at `/api/v1/files/{id}/content`.",
      security,
      middleware: read,
      request: { query: FileListQuery },
      responses: { 200: { description: "Page of files", content: json(pageOf("files", FileSummary)) }, ...commonErrors },
    }),
    async (c) => {
      const { limit, offset, pipeline_id, execution_id } = c.req.valid("query");
      const { rows, total } = await listFiles(c.get("ctx"), { pipelineId: pipeline_id, executionId: execution_id }, limit, offset);
      return c.json({ files: rows.map(presentFile), total_count: total }, 200);
    },
  )
  .openapi(
    createRoute({
      method: "post",
      operationId: "uploadFile",
      path: "/",
      audit: audited("file.upload", newId),
      tags,
      summary: "Store a file where nodes read it (e.g. an 837P for X12 to FHIR's {key} input)",
      description: "The content as `text` or `base64`, within the request body limit (413). The same key again replaces the file and keeps its id.",
      security,
      middleware: write,
      request: { body: { required: true, content: json(FileUploadBody) } },
      responses: { 201: { description: "Stored", content: json(FileSummary) }, ...commonErrors, ...tooLargeError },
    }),
    async (c) => {
      const body = c.req.valid("json");
      const content = body.text ?? Uint8Array.from(atob(body.base64 ?? ""), (ch) => ch.charCodeAt(0));
      const row = await uploadFile(c.get("ctx"), { key: body.key, contentType: body.content_type, content });
      return c.json(presentFile(row), 201);
    },
  )
  .openapi(
    createRoute({ method: "get", operationId: "getFile", path: "/{id}", tags, summary: "A file's metadata", security, middleware: read, request: { params: FileIdParam }, responses: { 200: { description: "File", content: json(FileSummary) }, ...commonErrors, ...notFoundError } }),
    async (c) => c.json(presentFile(await getFile(c.get("ctx"), c.req.valid("param").id)), 200),
  )
  .openapi(
    createRoute({
      method: "get",
      operationId: "downloadFile",
      path: "/{id}/content",
      audit: audited("file.download", byId),
      tags,
      summary: "Download a file (streamed from R2, with its Content-Type and Content-Length)",
      security,
      middleware: read,
      request: { params: FileIdParam },
      responses: { 200: { description: "The file's bytes", content: { "application/octet-stream": { schema: z.string().openapi({ format: "binary" }) } } }, ...commonErrors, ...notFoundError },
    }),
    async (c) => {
      const { row, object } = await openFile(c.get("ctx"), c.req.valid("param").id);
      const headers = new Headers({
        "Content-Type": row.contentType,
        "Content-Length": String(object.size),
        "Content-Disposition": `attachment; filename="${fileName(row.key)}"`,
        ETag: object.httpEtag,
      });
      return new Response(object.body, { headers });
    },
  )
  .openapi(
    createRoute({ method: "delete", operationId: "deleteFile", path: "/{id}", audit: audited("file.delete", byId), tags, summary: "Delete a file (admin)", security, middleware: manage, request: { params: FileIdParam }, responses: { 204: { description: "Deleted" }, ...commonErrors, ...notFoundError } }),
    async (c) => {
      await deleteFile(c.get("ctx"), c.req.valid("param").id);
      return c.body(null, 204);
    },
  );
