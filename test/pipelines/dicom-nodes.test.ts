// The DICOM node family against real Orthancs (Debian orthanc + orthanc-dicomweb) on
// loopback, started by test/setup/standards-servers.ts: the dicomweb connector and its
// connection test (basic auth), a pipeline that queries, retrieves metadata and instances
// (to R2), stores them in a second Orthanc and links an ImagingStudy to the Patient, re-run
// without duplicates; the node errors; and another organization reaching none of it.
import { env } from "cloudflare:workers";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createPipeline, definition, edge, run, trigger } from "../support/pipelines";
import { type Tenant, createTenant } from "../support/tenants";

// biome-ignore lint/suspicious/noExplicitAny: reading node outputs
type Json = Record<string, any>;

const MR_STUDY = "1.3.6.1.4.1.5962.1.2.4.20040826185059.5457";
const CT_STUDY = "1.3.6.1.4.1.5962.1.2.1.20040119072730.12322";
const MRN = "urn:oid:1.2.36.146.595.217.0.1";

interface Pacs {
  url: string;
  dicomweb: string;
  authorization: string | null;
}
const control = (path: string) => fetch(`${inject("orthancControlUrl")}${path}`).then(async (r) => (r.ok ? r.json() : Promise.reject(new Error(await r.text()))));

let source: Pacs;
let target: Pacs;
beforeAll(async () => {
  [source, target] = (await Promise.all([control("/start?seed=1"), control("/start")])) as [Pacs, Pacs];
}, 90_000);
afterAll(async () => {
  await Promise.all([source, target].filter(Boolean).map((o) => control(`/stop?url=${encodeURIComponent(o.url)}`)));
});

async function connector(t: Tenant, endpoint: string, extra: Record<string, unknown> = {}) {
  const res = await t.fetch("/api/connectors", { method: "POST", json: { name: "pacs", type: "dicomweb", endpoint, ...extra } });
  expect(res.status).toBe(201);
  return ((await res.json()) as { id: string }).id;
}

async function search(t: Tenant, query: string): Promise<Json[]> {
  const res = await t.fetch(`/fhir/r4/${t.orgId}/${query}`);
  expect(res.status).toBe(200);
  return (((await res.json()) as Json).entry ?? []).map((e: Json) => e.resource);
}

async function single(t: Tenant, type: string, config: Record<string, unknown>, port: string, inputs: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  const p = await createPipeline(t, definition([trigger(), { id: "n", type, config }], [edge("start", "n", "event", port)]));
  return (await run(t, p, inputs, extra)).body;
}

describe("dicomweb connector", () => {
  it("tests the connection with a QIDO query, with basic auth on a secured server", async () => {
    const t = await createTenant();
    const ok = await (await t.fetch(`/api/connectors/${await connector(t, source.dicomweb)}/test`, { method: "POST" })).json();
    expect(ok).toMatchObject({ ok: true, status: 200 });
    const secured = (await control("/start?user=alice&password=s3cret")) as Pacs;
    try {
      const withAuth = await connector(t, secured.dicomweb, { auth: { kind: "basic" }, credentials: { username: "alice", password: "s3cret" } });
      expect(await (await t.fetch(`/api/connectors/${withAuth}/test`, { method: "POST" })).json()).toMatchObject({ ok: true });
      const without = await connector(t, secured.dicomweb);
      expect(await (await t.fetch(`/api/connectors/${without}/test`, { method: "POST" })).json()).toMatchObject({ ok: false, status: 401 });
    } finally {
      await control(`/stop?url=${encodeURIComponent(secured.url)}`);
    }
    const types = (await (await t.fetch("/api/connectors/types")).json()) as Json;
    expect(JSON.stringify(types)).toContain('"type":"dicomweb"');
  }, 60_000);
});

describe("DICOM nodes against Orthanc", () => {
  it("queries by each criterion, with paging", async () => {
    const t = await createTenant();
    const id = await connector(t, source.dicomweb);
    const uids = async (criteria: Record<string, unknown>, extra: Record<string, unknown> = {}) => {
      const body = await single(t, "dicom.query", { connector_id: id, criteria, ...extra }, "criteria", {});
      expect(body.status).toBe("completed");
      return ((body.outputs as Json).n.output.results as Json[]).map((ds) => ds["0020000D"].Value[0]).sort();
    };
    expect(await uids({ patient_id: "4MR1" })).toEqual([MR_STUDY]);
    expect(await uids({ patient_name: "CompressedSamples^CT1" })).toEqual([CT_STUDY]);
    expect(await uids({ study_date: { from: "2004-06-01" } })).toEqual([MR_STUDY]);
    expect(await uids({ modality: "CT" })).toEqual([CT_STUDY]);
    expect(await uids({ accession_number: "ACC-MR-1" })).toEqual([MR_STUDY]);
    expect(await uids({ study_instance_uid: CT_STUDY })).toEqual([CT_STUDY]);
    const pages = [...(await uids({}, { limit: 1 })), ...(await uids({}, { limit: 1, offset: 1 }))];
    expect(pages.sort()).toEqual([CT_STUDY, MR_STUDY]);
    const series = await single(t, "dicom.query", { connector_id: id, level: "instances", criteria: { study_instance_uid: MR_STUDY } }, "criteria", {});
    expect((series.outputs as Json).n.output.count).toBe(2);
    const bad = await single(t, "dicom.query", { connector_id: id, criteria: { study_date: "yesterday" } }, "criteria", {});
    expect(bad.node_results.n?.error?.code).toBe("DICOMWEB_INVALID_REQUEST");
  });

  it("queries, retrieves, stores to a second PACS and links an ImagingStudy; a re-run creates nothing twice", async () => {
    const t = await createTenant();
    const from = await connector(t, source.dicomweb);
    const to = await connector(t, target.dicomweb);
    const def = definition(
      [
        trigger(),
        { id: "q", type: "dicom.query", config: { connector_id: from, criteria: { patient_id: "4MR1" } } },
        { id: "meta", type: "dicom.retrieve", config: { connector_id: from, what: "metadata" } },
        { id: "link", type: "dicom.imaging_study_link", config: { patient_identifier_system: MRN, create_patient: true, connector_id: from } },
        { id: "get", type: "dicom.retrieve", config: { connector_id: from, what: "instances" } },
        { id: "put", type: "dicom.store", config: { connector_id: to } },
      ],
      [edge("start", "q", "event", "criteria"), edge("q", "meta", "output", "targets"), edge("meta", "link", "metadata", "metadata"), edge("q", "get", "output", "targets"), edge("get", "put", "files", "files")],
    );
    const p = await createPipeline(t, def);
    const first = (await run(t, p, {})).body;
    expect(first.status, JSON.stringify(first.node_results)).toBe("completed");
    const out = first.outputs as Json;
    expect(out.put.output.failed).toEqual([]);
    expect(out.put.output.stored).toHaveLength(2);
    const files = first.node_results.get;
    expect(files?.status).toBe("completed");
    // The second PACS has the study now.
    const there = (await (await fetch(`${target.dicomweb}/studies?0020000D=${MR_STUDY}`, { headers: { accept: "application/dicom+json" } })).json()) as Json[];
    expect(there).toHaveLength(1);
    // The ImagingStudy: identified by its UID, linked to the created Patient, two instances, the Endpoint.
    const [study] = await search(t, `ImagingStudy?identifier=${encodeURIComponent(`urn:dicom:uid|urn:oid:${MR_STUDY}`)}`);
    const [patient] = await search(t, `Patient?identifier=${encodeURIComponent(`${MRN}|4MR1`)}`);
    expect(patient).toMatchObject({ identifier: [{ system: MRN, value: "4MR1" }] });
    expect(study).toMatchObject({ status: "available", subject: { reference: `Patient/${patient!.id}` }, numberOfSeries: 1, numberOfInstances: 2, modality: [{ code: "MR" }] });
    expect(out.link.output.studies).toEqual([{ study_uid: MR_STUDY, imaging_study: `ImagingStudy/${study!.id}`, patient: `Patient/${patient!.id}` }]);
    const [endpoint] = await search(t, "Endpoint");
    expect(study!.endpoint).toEqual([{ reference: `Endpoint/${endpoint!.id}` }]);
    expect(endpoint).toMatchObject({ address: source.dicomweb, connectionType: { code: "dicom-wado-rs" } });

    expect((await run(t, p, {})).body.status).toBe("completed");
    expect(await search(t, "ImagingStudy")).toHaveLength(1);
    expect(await search(t, "Patient")).toHaveLength(1);
    expect(await search(t, "Endpoint")).toHaveLength(1);

    // Another organization: the connector is not found, the studies not visible.
    const other = await createTenant();
    expect((await other.fetch(`/api/connectors/${from}`)).status).toBe(404);
    const foreign = await single(other, "dicom.query", { connector_id: from }, "criteria", {});
    expect(foreign.node_results.n?.error?.code).toBe("CONNECTOR_NOT_FOUND");
    expect(await search(other, "ImagingStudy")).toHaveLength(0);
    expect(await search(other, "Patient")).toHaveLength(0);
  }, 60_000);

  it("answers clear node errors: unknown study, server down, unknown patient; test mode stores nothing", async () => {
    const t = await createTenant();
    const id = await connector(t, source.dicomweb);
    const missing = await single(t, "dicom.retrieve", { connector_id: id, study_instance_uid: "1.2.3.999" }, "targets", {});
    expect(missing.node_results.n?.error?.code).toBe("DICOMWEB_NOT_FOUND");
    const { port } = (await control("/free-port")) as { port: number };
    const down = await connector(t, `http://127.0.0.1:${port}/dicom-web`);
    const unreachable = await single(t, "dicom.query", { connector_id: down }, "criteria", {});
    expect(unreachable.node_results.n?.error?.code).toBe("DICOMWEB_UNREACHABLE");
    const meta = (await single(t, "dicom.retrieve", { connector_id: id, study_instance_uid: CT_STUDY }, "targets", {})).outputs as Json;
    const unlinked = await single(t, "dicom.imaging_study_link", { patient_identifier_system: MRN }, "metadata", meta.n.metadata);
    expect(unlinked.node_results.n?.error?.code).toBe("DICOM_PATIENT_NOT_FOUND");

    const to = await connector(t, target.dicomweb);
    // A file that is not DICOM is refused before anything is sent.
    await env.BLOBS.put(`orgs/${t.orgId}/files/not-dicom.dcm`, "hello");
    const refused = await single(t, "dicom.store", { connector_id: to }, "files", { files: ["not-dicom.dcm"] });
    expect(refused.node_results.n?.error).toMatchObject({ code: "DICOM_INVALID", message: 'File not-dicom.dcm is not a DICOM Part-10 file (no "DICM" after the 128-byte preamble); nothing was sent' });
    // Over max_bytes: refused before sending (413), routed to the error port with on_error: route.
    const got = (await single(t, "dicom.retrieve", { connector_id: id, what: "instances", study_instance_uid: CT_STUDY }, "targets", {})).outputs as Json;
    const [ct] = got.n.files.files as { key: string; bytes: number }[];
    const big = await single(t, "dicom.store", { connector_id: to, max_bytes: 1000 }, "files", { files: [ct!.key] });
    expect(big.node_results.n?.error).toMatchObject({ code: "DICOMWEB_TOO_LARGE", message: `1 files hold ${ct!.bytes} bytes, over max_bytes 1000; nothing was sent (split the files over several stores, or raise max_bytes up to what the server accepts)` });
    // A connection that drops after sending began: one retryable error.
    const dropping = await connector(t, `${inject("droppingPeerUrl")}/dicom-web`);
    const lost = await single(t, "dicom.store", { connector_id: dropping }, "files", { files: [ct!.key] });
    expect(lost.node_results.n?.error).toMatchObject({ code: "DICOMWEB_CONNECTION_LOST" });
    // A server that is not there: nothing was sent, so not "lost" but unreachable.
    const never = await single(t, "dicom.store", { connector_id: down }, "files", { files: [ct!.key] });
    expect(never.node_results.n?.error?.code).toBe("DICOMWEB_UNREACHABLE");
    // Into a study the instance is not of: the server refuses it (409, reasons per instance).
    const conflict = await single(t, "dicom.store", { connector_id: to, study_instance_uid: "1.2.3.4" }, "files", { files: [ct!.key] });
    expect(conflict.node_results.n?.error).toMatchObject({ code: "DICOMWEB_CONFLICT" });
    expect((conflict.node_results.n?.error as Json | undefined)?.message).toMatch(/^STOW: HTTP 409, the server stored none of the instances: processing failure \(0x0110\)$/);
    // A thumbnail into the organization's files.
    const thumb = await single(t, "dicom.retrieve", { connector_id: id, what: "thumbnail", study_instance_uid: CT_STUDY }, "targets", {});
    expect(thumb.status, JSON.stringify(thumb.node_results)).toBe("completed");
    const [file] = (thumb.outputs as Json).n.files.files;
    expect(file).toMatchObject({ contentType: "image/jpeg", study: CT_STUDY });
    expect((await env.BLOBS.head(`orgs/${t.orgId}/files/${file.key}`))?.size).toBe(file.bytes);
    const p = await createPipeline(
      t,
      definition(
        [trigger(), { id: "get", type: "dicom.retrieve", config: { connector_id: id, what: "instances", study_instance_uid: CT_STUDY } }, { id: "put", type: "dicom.store", config: { connector_id: to } }],
        [edge("start", "get", "event", "targets"), edge("get", "put", "files", "files")],
      ),
    );
    const dry = (await run(t, p, {}, { test_mode: true })).body;
    expect(dry.node_results.get?.would_write?.[0]?.target).toMatch(/^files:dicom\//);
    const inTarget = await fetch(`${target.dicomweb}/studies?0020000D=${CT_STUDY}`, { headers: { accept: "application/dicom+json" } });
    expect(inTarget.status === 204 || ((await inTarget.json()) as unknown[]).length === 0).toBe(true);
  }, 60_000);
});
