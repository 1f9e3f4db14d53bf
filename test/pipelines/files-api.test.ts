// The files API (/api/v1/files) over the files nodes keep in R2: a pipeline retrieves a
// study's instances from a real Orthanc, and the files are listed (paged, by execution and
// by pipeline), described, downloaded byte for byte with their Content-Type and
// Content-Length, and deleted by an admin only; another organization sees none of them.
import { env } from "cloudflare:workers";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import P837 from "../fixtures/x12/837P-subscriber.x12?raw";
import { eventually } from "../support/eventually";
import { createPipeline, definition, edge, run, trigger } from "../support/pipelines";
import { authedFetch, createKey, createTenant } from "../support/tenants";

// biome-ignore lint/suspicious/noExplicitAny: reading API bodies
type Json = Record<string, any>;

const MR_STUDY = "1.3.6.1.4.1.5962.1.2.4.20040826185059.5457";
const control = (path: string) => fetch(`${inject("orthancControlUrl")}${path}`).then(async (r) => (r.ok ? r.json() : Promise.reject(new Error(await r.text()))));

let pacs: { url: string; dicomweb: string };
beforeAll(async () => {
  pacs = (await control("/start?seed=1")) as typeof pacs;
}, 60_000);
afterAll(async () => {
  if (pacs) await control(`/stop?url=${encodeURIComponent(pacs.url)}`);
});

describe("/api/v1/files", () => {
  it("lists, describes, downloads and deletes the files a pipeline stored; other orgs and roles are refused", async () => {
    const t = await createTenant();
    const connector = (await (await t.fetch("/api/connectors", { method: "POST", json: { name: "pacs", type: "dicomweb", endpoint: pacs.dicomweb } })).json()) as { id: string };
    const p = await createPipeline(t, definition([trigger(), { id: "get", type: "dicom.retrieve", config: { connector_id: connector.id, what: "instances", study_instance_uid: MR_STUDY } }], [edge("start", "get", "event", "targets")]));
    const first = (await run(t, p, {})).body;
    expect(first.status, JSON.stringify(first.node_results)).toBe("completed");
    const retrieved = (first.outputs as Json).get.files.files as { key: string; bytes: number }[];
    expect(retrieved).toHaveLength(2);

    // Listed by execution, newest first, with where each came from; paged.
    const page = (await (await t.fetch(`/api/v1/files?execution_id=${first.execution_id}`)).json()) as Json;
    expect(page.total_count).toBe(2);
    expect(page.files.map((f: Json) => f.key).sort()).toEqual(retrieved.map((f) => f.key).sort());
    for (const f of page.files) expect(f).toMatchObject({ content_type: "application/dicom", pipeline_id: p, execution_id: first.execution_id, node_id: "get" });
    const one = (await (await t.fetch(`/api/v1/files?execution_id=${first.execution_id}&limit=1&offset=1`)).json()) as Json;
    expect(one).toMatchObject({ total_count: 2, files: [page.files[1]] });
    // A second run: by pipeline there are four, by execution still two each.
    const second = (await run(t, p, {})).body;
    expect(((await (await t.fetch(`/api/v1/files?pipeline_id=${p}`)).json()) as Json).total_count).toBe(4);
    expect(((await (await t.fetch(`/api/v1/files?execution_id=${second.execution_id}`)).json()) as Json).total_count).toBe(2);
    expect((await (await t.fetch("/api/v1/files?pipeline_id=no-such-pipeline")).json())).toEqual({ files: [], total_count: 0 });

    // Metadata and download: the R2 object under the org's own folder, streamed as it is.
    const file = page.files[0] as Json;
    expect(await (await t.fetch(`/api/v1/files/${file.id}`)).json()).toEqual(file);
    const object = await env.BLOBS.get(`orgs/${t.orgId}/files/${file.key}`);
    expect(object?.size).toBe(file.bytes);
    const expected = new Uint8Array(await object!.arrayBuffer());
    const download = await t.fetch(`/api/v1/files/${file.id}/content`);
    expect(download.status).toBe(200);
    expect(download.headers.get("content-type")).toBe("application/dicom");
    expect(download.headers.get("content-length")).toBe(String(file.bytes));
    expect(download.headers.get("content-disposition")).toMatch(/^attachment; filename="\d+\.dcm"$/);
    const bytes = new Uint8Array(await download.arrayBuffer());
    expect(bytes).toEqual(expected);
    expect(new TextDecoder().decode(bytes.subarray(128, 132))).toBe("DICM");

    // Another organization: nothing listed, every file a 404 (even by a key that exists).
    const other = await createTenant();
    expect(await (await other.fetch(`/api/v1/files?execution_id=${first.execution_id}`)).json()).toEqual({ files: [], total_count: 0 });
    expect(await (await other.fetch(`/api/v1/files?pipeline_id=${p}`)).json()).toEqual({ files: [], total_count: 0 });
    for (const [method, path] of [["GET", `/api/v1/files/${file.id}`], ["GET", `/api/v1/files/${file.id}/content`], ["DELETE", `/api/v1/files/${file.id}`]] as const) {
      const res = await other.fetch(path, { method });
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(await res.json()).toMatchObject({ error: { code: "FILE_NOT_FOUND", status: 404 } });
    }
    expect(await env.BLOBS.head(`orgs/${t.orgId}/files/${file.key}`)).not.toBeNull();

    // Delete is for admins: a clinician may read, not delete.
    const clinician = authedFetch(t.orgId, (await createKey(t.orgId, "clinician")).key);
    expect((await clinician(`/api/v1/files/${file.id}`)).status).toBe(200);
    const refused = await clinician(`/api/v1/files/${file.id}`, { method: "DELETE" });
    expect(refused.status).toBe(403);
    expect((await t.fetch(`/api/v1/files/${file.id}`, { method: "DELETE" })).status).toBe(204);
    expect(await env.BLOBS.head(`orgs/${t.orgId}/files/${file.key}`)).toBeNull();
    expect((await t.fetch(`/api/v1/files/${file.id}`)).status).toBe(404);
    expect((await t.fetch(`/api/v1/files/${file.id}/content`)).status).toBe(404);
    // Downloads and deletes are in the audit trail.
    for (const action of ["file.download", "file.delete"]) {
      const events = await eventually(
        async () => ((await (await t.fetch(`/api/audit?action=${action}`)).json()) as Json).audit_events as Json[],
        (l) => l.some((e) => e.entity[0]?.what?.identifier.value === file.id && e.outcome === "0"),
      );
      // The successful one (the 404s after the delete are recorded too, with outcome 4).
      const mine = events.filter((e) => e.entity[0]?.what?.identifier.value === file.id);
      expect(mine.map((e) => e.outcome)).toContain("0");
      expect(mine[0]).toMatchObject({ entity: [{ type: { code: "file" } }] });
    }
    expect(((await (await t.fetch(`/api/v1/files?execution_id=${first.execution_id}`)).json()) as Json).total_count).toBe(1);
  }, 60_000);

  it("takes an uploaded X12 file that X12 to FHIR then reads by key (837P file in R2 → Claim)", async () => {
    const t = await createTenant();
    const up = await t.fetch("/api/v1/files", { method: "POST", json: { key: "claims/batch1.837", content_type: "application/edi-x12", text: P837 } });
    expect(up.status, await up.clone().text()).toBe(201);
    const file = (await up.json()) as Json;
    expect(file).toMatchObject({ key: "claims/batch1.837", bytes: new TextEncoder().encode(P837).byteLength, content_type: "application/edi-x12", pipeline_id: null, execution_id: null });
    expect(await (await t.fetch(`/api/v1/files/${file.id}/content`)).text()).toBe(P837);
    // The same key again: the same file, replaced.
    const again = (await (await t.fetch("/api/v1/files", { method: "POST", json: { key: "claims/batch1.837", content_type: "application/edi-x12", base64: btoa(P837) } })).json()) as Json;
    expect(again.id).toBe(file.id);
    const p = await createPipeline(t, definition([trigger(), { id: "fhir", type: "x12.to_fhir" }], [edge("start", "fhir", "event", "interchange")]));
    const res = (await run(t, p, { key: "claims/batch1.837" })).body;
    expect(res.status, JSON.stringify(res.node_results)).toBe("completed");
    const claims = ((await (await t.fetch(`/fhir/r4/${t.orgId}/Claim`)).json()) as Json).entry ?? [];
    expect(claims.map((e: Json) => e.resource.identifier[0].value)).toEqual(["PCN1001"]);
    // Another organization cannot read it, by id or through a pipeline by key.
    const other = await createTenant();
    expect((await other.fetch(`/api/v1/files/${file.id}/content`)).status).toBe(404);
    const q = await createPipeline(other, definition([trigger(), { id: "fhir", type: "x12.to_fhir" }], [edge("start", "fhir", "event", "interchange")]));
    expect((await run(other, q, { key: "claims/batch1.837" })).body.node_results.fhir?.error?.code).toBe("FILE_NOT_FOUND");
    // Bad uploads: both contents, neither, a key leaving the folder.
    for (const json of [{ key: "a.x12", text: "x", base64: "eA==" }, { key: "a.x12" }, { key: "../a.x12", text: "x" }, { key: "a.x12", text: "x", extra: 1 }]) {
      const bad = await t.fetch("/api/v1/files", { method: "POST", json });
      expect(bad.status, JSON.stringify(json)).toBe(400);
      expect(await bad.json()).toMatchObject({ error: { status: 400 } });
    }
  });

  it("answers bad input with 400 in the documented shape", async () => {
    const t = await createTenant();
    for (const path of ["/api/v1/files/not-a-uuid", "/api/v1/files/not-a-uuid/content", "/api/v1/files?limit=1000", "/api/v1/files?offset=-1"]) {
      const res = await t.fetch(path);
      expect(res.status, path).toBe(400);
      expect(await res.json()).toMatchObject({ error: { code: expect.any(String), status: 400 } });
    }
    expect((await t.fetch(`/api/v1/files/${crypto.randomUUID()}`)).status).toBe(404);
  });

  it("test mode stores and lists nothing", async () => {
    const t = await createTenant();
    const connector = (await (await t.fetch("/api/connectors", { method: "POST", json: { name: "pacs", type: "dicomweb", endpoint: pacs.dicomweb } })).json()) as { id: string };
    const p = await createPipeline(t, definition([trigger(), { id: "get", type: "dicom.retrieve", config: { connector_id: connector.id, what: "instances", study_instance_uid: MR_STUDY } }], [edge("start", "get", "event", "targets")]));
    const dry = (await run(t, p, {}, { test_mode: true })).body;
    expect(dry.status).toBe("completed");
    expect(await (await t.fetch(`/api/v1/files?pipeline_id=${p}`)).json()).toEqual({ files: [], total_count: 0 });
  }, 60_000);
});
