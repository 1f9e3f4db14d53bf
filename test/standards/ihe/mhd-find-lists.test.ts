// mhd.find_document_lists (ITI-66 Find Document Lists) against the organization's own store: the
// SubmissionSet an ITI-65 stored is found by patient.identifier and by patient, with the list
// type and status asked; Folders only, or retired lists, find none of it; bad input fails with
// MHD_INPUT_INVALID; another organization's pipeline finds nothing.
import { describe, expect, it } from "vitest";
import type { Bundle, Resource } from "../../../src/features/fhir/port";
import { createPipeline, definition, edge, run, trigger } from "../../support/pipelines";
import { createTenant, type Tenant } from "../../support/tenants";
import { post } from "../../fhir/support";

const pipelineOf = (t: Tenant, type: string, config: Record<string, unknown>) => createPipeline(t, definition([trigger(), { id: "mhd", type, config }], [edge("start", "mhd", "event", "input")]));

async function lists(t: Tenant, config: Record<string, unknown>, input: Record<string, unknown>): Promise<Bundle> {
  const done = await run(t, await pipelineOf(t, "mhd.find_document_lists", config), input);
  expect(done.body.status, JSON.stringify(done.body)).toBe("completed");
  return (done.body.outputs as { mhd: { lists: Bundle } }).mhd.lists;
}

describe("mhd.find_document_lists (ITI-66)", () => {
  it("finds the SubmissionSet an ITI-65 stored, by the patient's identifier or id, type and status", async () => {
    const t = await createTenant();
    const p = await post(t, { resourceType: "Patient", identifier: [{ system: "urn:oid:1.2.9", value: "lists-1" }], name: [{ family: "Lists" }] });
    const provided = await run(t, await pipelineOf(t, "mhd.provide_document", { option: "minimal" }), { patient: `Patient/${p.id}`, text: "Referral", content_type: "text/plain" });
    expect(provided.body.status, JSON.stringify(provided.body)).toBe("completed");

    const byIdentifier = await lists(t, {}, { patient_identifier: "urn:oid:1.2.9|lists-1" });
    expect(byIdentifier.total).toBe(1);
    const set = byIdentifier.entry![0]!.resource as Resource & { code: { coding: { code: string }[] }; subject: { reference: string }; entry: { item: { reference: string } }[] };
    expect(set.code.coding[0]!.code).toBe("submissionset");
    expect(set.subject.reference).toBe(`Patient/${p.id}`);
    expect(set.entry[0]!.item.reference).toMatch(/DocumentReference\//);
    expect((await lists(t, { list_type: "submissionset" }, { patient: `Patient/${p.id}` })).total).toBe(1);
    expect((await lists(t, { list_type: "folder" }, { patient: `Patient/${p.id}` })).total).toBe(0);
    expect((await lists(t, { status: "retired" }, { patient: `Patient/${p.id}` })).total).toBe(0);

    const bad = await run(t, await pipelineOf(t, "mhd.find_document_lists", {}), { nobody: true });
    expect(bad.body.node_results.mhd?.error?.code).toBe("MHD_INPUT_INVALID");

    // Another organization's pipeline finds nothing.
    const o = await createTenant();
    expect((await lists(o, {}, { patient_identifier: "urn:oid:1.2.9|lists-1" })).total).toBe(0);
  });
});
