// The MHD catalog nodes against the organization's own store: mhd.provide_document builds a
// valid ITI-65 Bundle (checked by the MHD rules, stored in one transaction, the document
// retrievable by ITI-68), refuses an incomplete Comprehensive one with the XDS codes and stores
// nothing; mhd.find_documents finds it by ITI-67; mhd.retrieve_document fetches it; another
// organization's pipeline finds and retrieves nothing. The stored attachment.url is absolute
// under PUBLIC_BASE_URL, as an ITI-65 over HTTP stores it.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { contextForOrg } from "../../../src/main/context";
import type { Bundle, Resource } from "../../../src/features/fhir/port";
import { pipelinePrincipal } from "../../../src/features/pipelines/services";
import { provideDocumentNode } from "../../../src/standards/ihe/mhd/nodes";
import { createPipeline, definition, edge, run, trigger } from "../../support/pipelines";
import { createTenant, type Tenant } from "../../support/tenants";
import { post } from "../../fhir/support";
import { COMPREHENSIVE } from "./support/mhd-bundle";


const pipelineOf = (t: Tenant, type: string, config: Record<string, unknown>) => createPipeline(t, definition([trigger(), { id: "mhd", type, config }], [edge("start", "mhd", "event", "input")]));

describe("MHD nodes", () => {
  it("provides a document to the store and finds it again", async () => {
    const t = await createTenant();
    const p = await post(t, { resourceType: "Patient", identifier: [{ system: "urn:oid:1.2.9", value: "node-1" }], name: [{ family: "Node" }] });
    const provide = await pipelineOf(t, "mhd.provide_document", COMPREHENSIVE);
    const done = await run(t, provide, { patient: `Patient/${p.id}`, text: "Discharge letter: all well", content_type: "text/plain", title: "Discharge" });
    expect(done.body.status, JSON.stringify(done.body)).toBe("completed");
    const out = done.body.outputs as { mhd: { response: Bundle; bundle: Bundle } };
    expect(out.mhd.response.type).toBe("transaction-response");
    expect(out.mhd.bundle.meta!.profile).toEqual(["https://profiles.ihe.net/ITI/MHD/StructureDefinition/IHE.MHD.Comprehensive.ProvideBundle"]);
    // What the Comprehensive profiles require: the SubmissionSet's sourceId (the organization's, stable) and designationType
    // (the document's type), the DocumentReference's language, creation and the patient as known now, contained.
    const set = out.mhd.bundle.entry![0]!.resource!;
    const sent = out.mhd.bundle.entry![1]!.resource!;
    const ext = (url: string) => (set.extension as unknown as { url: string }[]).filter((e) => e.url.endsWith(url));
    expect(ext("ihe-sourceId")).toEqual([{ url: "https://profiles.ihe.net/ITI/MHD/StructureDefinition/ihe-sourceId", valueIdentifier: { system: "urn:ietf:rfc:3986", value: expect.stringMatching(/^urn:oid:2\.25\.\d+$/) } }]);
    expect(ext("ihe-designationType")).toEqual([{ url: "https://profiles.ihe.net/ITI/MHD/StructureDefinition/ihe-designationType", valueCodeableConcept: { coding: [COMPREHENSIVE.type] } }]);
    expect(sent).toMatchObject({ content: [{ attachment: { language: "en", creation: expect.any(String) } }], context: { sourcePatientInfo: { reference: "#source-patient" } } });
    expect(sent.contained).toEqual([{ resourceType: "Patient", id: "source-patient", identifier: p.identifier, name: p.name }]);
    const again = await run(t, provide, { patient: `Patient/${p.id}`, text: "Second letter", content_type: "text/plain" });
    const againSet = (again.body.outputs as { mhd: { bundle: Bundle } }).mhd.bundle.entry![0]!.resource!;
    expect((againSet.extension as unknown[])[0]).toEqual(ext("ihe-sourceId")[0]);

    const find = await pipelineOf(t, "mhd.find_documents", {});
    const found = await run(t, find, { patient_identifier: "urn:oid:1.2.9|node-1" });
    const docs = (found.body.outputs as { mhd: { documents: Bundle } }).mhd.documents;
    expect(docs.total).toBe(2);
    const doc = docs.entry!.map((e) => e.resource!).find((d) => (d as { description?: string }).description === "Discharge")! as Resource & { content: { attachment: { url: string; size: number } }[] };
    expect(doc.content[0]!.attachment.size).toBe(new TextEncoder().encode("Discharge letter: all well").length);
    // The stored Binary is the document (ITI-68 through the store's read).
    const binaryId = doc.content[0]!.attachment.url.split("/").pop()!;
    const raw = await t.fetch(`/fhir/r4/${t.orgId}/Binary/${binaryId}`, { headers: { accept: "text/plain" } });
    expect(await raw.text()).toBe("Discharge letter: all well");

    // Another organization's pipeline finds nothing.
    const o = await createTenant();
    const none = await run(o, await pipelineOf(o, "mhd.find_documents", {}), { patient_identifier: "urn:oid:1.2.9|node-1" });
    expect((none.body.outputs as { mhd: { documents: Bundle } }).mhd.documents.total).toBe(0);
  });

  it("refuses an incomplete Comprehensive document or an unknown patient, storing nothing", async () => {
    const t = await createTenant();
    const p = await post(t, { resourceType: "Patient", name: [{ family: "Node" }] });
    const incomplete = await run(t, await pipelineOf(t, "mhd.provide_document", {}), { patient: `Patient/${p.id}`, text: "x", content_type: "text/plain" });
    expect(incomplete.body.node_results.mhd?.error?.code).toBe("MHD_BUNDLE_INVALID");
    const unknown = await run(t, await pipelineOf(t, "mhd.provide_document", { option: "minimal" }), { patient: "Patient/nobody", text: "x", content_type: "text/plain" });
    expect(unknown.body.node_results.mhd?.error?.code).toBe("MHD_BUNDLE_INVALID");
    const bad = await run(t, await pipelineOf(t, "mhd.provide_document", { option: "minimal" }), { text: "x" });
    expect(bad.body.node_results.mhd?.error?.code).toBe("MHD_INPUT_INVALID");
    const count = (await (await t.fetch(`/fhir/r4/${t.orgId}/DocumentReference?_summary=count`)).json()) as Bundle;
    expect(count.total).toBe(0);
  });

  it("retrieves a stored document by ITI-68 from its DocumentReference, never another organization's", async () => {
    const t = await createTenant();
    const p = await post(t, { resourceType: "Patient", name: [{ family: "Node" }] });
    const done = await run(t, await pipelineOf(t, "mhd.provide_document", COMPREHENSIVE), { patient: `Patient/${p.id}`, text: "Lab report", content_type: "text/plain" });
    const stored = (done.body.outputs as { mhd: { response: Bundle } }).mhd.response.entry![1]!.resource as Resource & { content: { attachment: { url: string; size: number; hash: string } }[] };
    const got = await run(t, await pipelineOf(t, "mhd.retrieve_document", {}), stored);
    expect(got.body.status, JSON.stringify(got.body)).toBe("completed");
    const doc = (got.body.outputs as { mhd: { document: { data: string; content_type: string; size: number; hash: string } } }).mhd.document;
    expect(doc).toMatchObject({ content_type: "text/plain", size: stored.content[0]!.attachment.size, hash: stored.content[0]!.attachment.hash });
    expect(atob(doc.data)).toBe("Lab report");
    // Another organization's pipeline cannot read it: not its URL, and not its Binary either.
    const o = await createTenant();
    const theirs = await run(o, await pipelineOf(o, "mhd.retrieve_document", {}), stored);
    expect(theirs.body.node_results.mhd?.error?.code).toBe("MHD_URL_NOT_LOCAL");
    const byId = await run(o, await pipelineOf(o, "mhd.retrieve_document", {}), { url: `Binary/${stored.content[0]!.attachment.url.split("/").pop()}` });
    expect(byId.body.node_results.mhd?.error?.code).toBe("MHD_DOCUMENT_UNAVAILABLE");
  });

  it("stores attachment.url as the absolute retrieve URL under PUBLIC_BASE_URL; the Bundle names the Binary by its urn:uuid", async () => {
    const t = await createTenant();
    const p = await post(t, { resourceType: "Patient", name: [{ family: "Node" }] });
    // A deployment's configuration (the suite runs under DEV_MODE without PUBLIC_BASE_URL).
    const ctx = await contextForOrg({ ...env, PUBLIC_BASE_URL: "https://cdis.example.org/" }, t.orgId);
    const principal = pipelinePrincipal(t.orgId, "mhd-test");
    const result = await provideDocumentNode.run({
      nodeId: "mhd",
      config: provideDocumentNode.config.parse(COMPREHENSIVE),
      inputs: { input: { patient: `Patient/${p.id}`, text: "Absolute", content_type: "text/plain" } },
      orgId: t.orgId,
      executionId: "x",
      testMode: false,
      trigger: { type: "manual" },
      services: ctx.pipelines(principal, false),
      signal: new AbortController().signal,
      resumed: false,
      log: () => {},
      wouldWrite: () => {},
      runBody: async () => ({ outputs: {} }),
    } as unknown as Parameters<typeof provideDocumentNode.run>[0]);
    const { response, bundle } = (result as { outputs: { response: Bundle; bundle: Bundle } }).outputs;
    const binaryEntry = bundle.entry!.find((e) => e.resource?.resourceType === "Binary")!;
    const sentDoc = bundle.entry!.find((e) => e.resource?.resourceType === "DocumentReference")!.resource as Resource & { content: { attachment: { url: string } }[] };
    expect(binaryEntry.fullUrl).toMatch(/^urn:uuid:/);
    expect(sentDoc.content[0]!.attachment.url).toBe(binaryEntry.fullUrl);
    const binaryId = response.entry![2]!.response!.location!.split("/")[response.entry![2]!.response!.location!.split("/").indexOf("Binary") + 1];
    const storedDoc = (await (await t.fetch(`/fhir/r4/${t.orgId}/DocumentReference?patient=Patient/${p.id}&status=current`)).json()) as Bundle;
    const url = (storedDoc.entry![0]!.resource as Resource & { content: { attachment: { url: string } }[] }).content[0]!.attachment.url;
    expect(url).toBe(`https://cdis.example.org/fhir/r4/${t.orgId}/Binary/${binaryId}`);
    expect(response.entry![2]!.fullUrl).toBe(`https://cdis.example.org/fhir/r4/${t.orgId}/Binary/${binaryId}`);
    // That URL's path is the ITI-68 retrieve endpoint.
    const raw = await t.fetch(new URL(url).pathname, { headers: { accept: "text/plain" } });
    expect(await raw.text()).toBe("Absolute");
  });
});
