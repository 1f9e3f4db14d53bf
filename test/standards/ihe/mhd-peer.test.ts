// The MHD nodes against a live peer: an independent FHIR server on loopback (Medplum's router,
// test/setup/fhir-peer.ts) reached through a `fhir` connector. mhd.provide_document sends its
// ITI-65 Bundle there; what the peer stored is read back from the peer itself; then
// mhd.find_documents (ITI-67) finds the document there and mhd.retrieve_document (ITI-68)
// fetches its bytes from the URL the peer gave, checked against size and hash.
import { describe, expect, inject, it } from "vitest";
import type { Bundle, Resource } from "../../../src/features/fhir/port";
import { createPipeline, definition, edge, run, trigger } from "../../support/pipelines";
import { createTenant, type Tenant } from "../../support/tenants";
import { COMPREHENSIVE } from "./support/mhd-bundle";


let peers = 0;
/** A fresh Document Recipient/Responder (its own repository on the peer) and a bearer FHIR connector to it. */
async function recipient(t: Tenant) {
  const name = `mhd${Date.now()}x${peers++}`;
  const endpoint = `${inject("fhirPeerUrl")}/${name}`;
  const res = await t.fetch("/api/connectors", { method: "POST", json: { name: "MHD peer", type: "fhir", endpoint, auth: { kind: "bearer" }, credentials: { token: "mhd-token" } } });
  expect(res.status).toBe(201);
  const connectorId = ((await res.json()) as { id: string }).id;
  const call = async <T = Resource>(path: string, init: RequestInit = {}) => (await (await fetch(`${endpoint}/${path}`, { ...init, headers: { "content-type": "application/fhir+json", ...(init.headers ?? {}) } })).json()) as T;
  const requests = async () =>
    ((await (await fetch(`${inject("fhirPeerUrl")}/_control/${name}/requests`)).json()) as { requests: { method: string; url: string; headers: Record<string, string>; body: unknown }[] }).requests;
  return { name, connectorId, endpoint, call, requests };
}

const runNode = async (t: Tenant, type: string, config: Record<string, unknown>, input: unknown) => {
  const id = await createPipeline(t, definition([trigger(), { id: "mhd", type, config }], [edge("start", "mhd", "event", "input")]));
  return (await run(t, id, input as Record<string, unknown>)).body;
};

type Doc = Resource & { status: string; subject: { reference: string }; content: { attachment: { url: string; size: number; hash: string; contentType: string } }[] };

describe("MHD nodes against a live Document Recipient/Responder (Medplum's FHIR server)", () => {
  it("provides a document (ITI-65), finds it (ITI-67) and retrieves it (ITI-68) through a fhir connector", async () => {
    const t = await createTenant();
    const peer = await recipient(t);
    const patient = await peer.call("Patient", { method: "POST", body: JSON.stringify({ resourceType: "Patient", identifier: [{ system: "urn:oid:1.2.40", value: "peer-1" }], name: [{ family: "Peer" }] }) });
    const letter = "Discharge letter: sent to the peer";

    const provided = await runNode(t, "mhd.provide_document", { connector_id: peer.connectorId, ...COMPREHENSIVE }, { patient: `Patient/${patient.id}`, text: letter, content_type: "text/plain", title: "Discharge" });
    expect(provided.status, JSON.stringify(provided)).toBe("completed");
    const { response, bundle } = (provided.outputs as { mhd: { response: Bundle; bundle: Bundle } }).mhd;
    expect(response.type).toBe("transaction-response");
    expect(response.entry!.map((e) => e.response?.status)).toEqual(["201", "201", "201"].map((s) => expect.stringMatching(new RegExp(`^${s}`))));

    // What went over the wire: one POST of the ITI-65 transaction to the base, the Binary named by its urn:uuid fullUrl.
    const sent = (await peer.requests()).filter((r) => r.method === "POST" && r.url === "");
    expect(sent).toHaveLength(1);
    expect(sent[0]!.headers.authorization).toBe("Bearer mhd-token");
    expect(sent[0]!.body).toMatchObject(bundle); // the peer's log holds the body its router then gave ids
    const binaryEntry = bundle.entry!.find((e) => e.resource?.resourceType === "Binary")!;
    expect(binaryEntry.fullUrl).toMatch(/^urn:uuid:/);
    expect((bundle.entry![1]!.resource as Doc).content[0]!.attachment.url).toBe(binaryEntry.fullUrl);

    // What the peer stored: the SubmissionSet listing the DocumentReference, the document pointing at the stored Binary.
    // Medplum answers relative locations ("List/id"), as FHIR allows.
    const location = (type: string) => response.entry!.map((e) => e.response!.location!).find((l) => new RegExp(`(^|/)${type}/`).test(l))!;
    const idOf = (loc: string) => loc.split("/_history")[0]!.split("/").pop()!;
    const doc = await peer.call<Doc>(`DocumentReference/${idOf(location("DocumentReference"))}`);
    const set = await peer.call<Resource & { entry: { item: { reference: string } }[]; subject: { reference: string } }>(`List/${idOf(location("List"))}`);
    const binary = await peer.call<Resource & { data: string; contentType: string }>(`Binary/${idOf(location("Binary"))}`);
    expect(set.entry[0]!.item.reference).toBe(`DocumentReference/${doc.id}`);
    expect(set.subject.reference).toBe(`Patient/${patient.id}`);
    expect(doc).toMatchObject({ status: "current", subject: { reference: `Patient/${patient.id}` }, content: [{ attachment: { contentType: "text/plain", size: new TextEncoder().encode(letter).length } }] });
    expect(doc.content[0]!.attachment.url).toMatch(new RegExp(`Binary/${binary.id}$`));
    expect(binary).toMatchObject({ contentType: "text/plain" });
    expect(new TextDecoder().decode(Uint8Array.from(atob(binary.data), (c) => c.charCodeAt(0)))).toBe(letter);

    // ITI-67 from the peer, by patient.identifier and status.
    const found = await runNode(t, "mhd.find_documents", { connector_id: peer.connectorId }, { patient_identifier: "urn:oid:1.2.40|peer-1" });
    expect(found.status, JSON.stringify(found)).toBe("completed");
    const documents = (found.outputs as { mhd: { documents: Bundle } }).mhd.documents;
    expect(documents.entry!.map((e) => e.resource!.id)).toEqual([doc.id]);
    expect((await peer.requests()).at(-1)!.url).toBe("DocumentReference?patient.identifier=urn%3Aoid%3A1.2.40%7Cpeer-1&status=current");

    // ITI-68 from the URL the peer gave, the bytes checked against the DocumentReference's size and hash.
    const retrieved = await runNode(t, "mhd.retrieve_document", { connector_id: peer.connectorId }, documents.entry![0]!.resource);
    expect(retrieved.status, JSON.stringify(retrieved)).toBe("completed");
    const out = (retrieved.outputs as { mhd: { document: { content_type: string; data: string; size: number; hash: string } } }).mhd.document;
    expect(out).toMatchObject({ content_type: "text/plain", size: doc.content[0]!.attachment.size, hash: doc.content[0]!.attachment.hash });
    expect(atob(out.data)).toBe(letter);
    expect((await peer.requests()).at(-1)).toMatchObject({ method: "GET", url: `Binary/${binary.id}`, headers: { accept: "text/plain, application/fhir+json;q=0.5", authorization: "Bearer mhd-token" } });
  });

  it("fails with the peer's answer or the XDS integrity code, never sending credentials outside the connector", async () => {
    const t = await createTenant();
    const peer = await recipient(t);
    // The recipient refuses (here a 503 from its gateway, to the patient check): the node fails with its status and OperationOutcome.
    const patient = await peer.call("Patient", { method: "POST", body: JSON.stringify({ resourceType: "Patient", name: [{ family: "Refused" }] }) });
    await fetch(`${inject("fhirPeerUrl")}/_control/${peer.name}/throttle`, { method: "POST", body: JSON.stringify({ status: 503, count: 1, retryAfter: "1" }) });
    const refused = await runNode(t, "mhd.provide_document", { connector_id: peer.connectorId, ...COMPREHENSIVE }, { patient: `Patient/${patient.id}`, text: "x", content_type: "text/plain" });
    expect(refused.node_results.mhd?.error).toMatchObject({ code: "MHD_PEER_REFUSED", details: { status: 503, outcome: { resourceType: "OperationOutcome" } } });

    // The node holds its Bundle to the ITI-65 rules before sending: Medplum, a plain FHIR server, stores
    // an incomplete Comprehensive Bundle or one about a patient it does not have; here nothing is sent.
    const posts = async () => (await peer.requests()).filter((r) => r.method === "POST" && r.url === "").length;
    const sentBefore = await posts();
    const incomplete = await runNode(t, "mhd.provide_document", { connector_id: peer.connectorId }, { patient: "Patient/p", text: "x", content_type: "text/plain" });
    expect(incomplete.node_results.mhd?.error).toMatchObject({ code: "MHD_BUNDLE_INVALID" });
    expect(JSON.stringify(incomplete.node_results.mhd?.error)).toContain("XDSRegistryMetadataError");
    const unknown = await runNode(t, "mhd.provide_document", { connector_id: peer.connectorId, ...COMPREHENSIVE }, { patient: "Patient/unknown-there", text: "x", content_type: "text/plain" });
    expect(unknown.node_results.mhd?.error).toMatchObject({ code: "MHD_BUNDLE_INVALID" });
    expect(JSON.stringify(unknown.node_results.mhd?.error)).toContain("XDSUnknownPatientId");
    expect(await posts()).toBe(sentBefore);
    expect((await peer.requests()).at(-1)).toMatchObject({ method: "GET", url: "Patient/unknown-there" });

    const binary = await peer.call("Binary", { method: "POST", body: JSON.stringify({ resourceType: "Binary", contentType: "text/plain", data: btoa("the real bytes") }) });
    const tampered = await runNode(t, "mhd.retrieve_document", { connector_id: peer.connectorId }, { resourceType: "DocumentReference", content: [{ attachment: { url: `${peer.endpoint}/Binary/${binary.id}`, contentType: "text/plain", size: 14, hash: "AAAAAAAAAAAAAAAAAAAAAAAAAAA=" } }] });
    expect(tampered.node_results.mhd?.error).toMatchObject({ code: "MHD_DOCUMENT_INTEGRITY" });
    const gone = await runNode(t, "mhd.retrieve_document", { connector_id: peer.connectorId }, { url: "Binary/does-not-exist" });
    expect(gone.node_results.mhd?.error).toMatchObject({ code: "MHD_PEER_REFUSED" });
    const before = (await peer.requests()).length;
    const elsewhere = await runNode(t, "mhd.retrieve_document", { connector_id: peer.connectorId }, { url: "http://127.0.0.1:9/Binary/x" });
    expect(elsewhere.node_results.mhd?.error?.code).toBe("CONNECTOR_URL_OUTSIDE_ENDPOINT");
    expect((await peer.requests()).length).toBe(before);
  });
});
