// The MHD catalog nodes against the organization's own store: mhd.provide_document builds a
// valid ITI-65 Bundle (checked by the MHD rules, stored in one transaction, the document
// retrievable by ITI-68), refuses an incomplete Comprehensive one with the XDS codes and stores
// nothing; mhd.find_documents finds it by ITI-67; another organization's pipeline finds nothing.
import { describe, expect, it } from "vitest";
import type { Bundle, Resource } from "../../../src/features/fhir/port";
import { createPipeline, definition, edge, run, trigger } from "../../support/pipelines";
import { createTenant, type Tenant } from "../../support/tenants";
import { post } from "../../fhir/support";

const coding = (system: string, code: string) => ({ system, code });
const COMPREHENSIVE = {
  type: coding("http://loinc.org", "18842-5"),
  category: coding("http://loinc.org", "11488-4"),
  facility_type: coding("http://snomed.info/sct", "22232009"),
  practice_setting: coding("http://snomed.info/sct", "394802001"),
};

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

    const find = await pipelineOf(t, "mhd.find_documents", {});
    const found = await run(t, find, { patient_identifier: "urn:oid:1.2.9|node-1" });
    const docs = (found.body.outputs as { mhd: { documents: Bundle } }).mhd.documents;
    expect(docs.total).toBe(1);
    const doc = docs.entry![0]!.resource as Resource & { content: { attachment: { url: string; size: number } }[] };
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
});
