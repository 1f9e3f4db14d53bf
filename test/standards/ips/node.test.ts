// The ips.summary pipeline node: a stored patient's document, a document from an HL7 v2
// conversion's Bundle in the same pipeline, bad input, and another organization's patient.
import { describe, expect, it } from "vitest";
import type { Bundle } from "../../../src/features/fhir/port";
import { checkIpsDocument } from "../../../src/standards/ips/checks";
import { createPipeline, definition, edge, run, trigger } from "../../support/pipelines";
import { createTenant } from "../../support/tenants";
import { post } from "../../fhir/support";

const ADT = [
  "MSH|^~\\&|ADT|HOSP|EHR|HOSP|20240101120000||ADT^A01^ADT_A01|N1|P|2.5.1",
  "PID|1||N-1^^^HOSP^MR||ROE^RICHARD||19700101|M",
  "AL1|1|DA|70618^Penicillin^RXNORM|SV|Hives",
].join("\r");

const documentOf = (body: { outputs: Record<string, unknown> }) => (body.outputs as { ips: { document: Bundle } }).ips.document;

describe("ips.summary node", () => {
  it("summarises a stored patient named on the input", async () => {
    const t = await createTenant();
    const p = await post(t, { resourceType: "Patient", name: [{ family: "Node" }] });
    await post(t, { resourceType: "AllergyIntolerance", patient: { reference: `Patient/${p.id}` }, code: { text: "Peanut" } });
    await post(t, { resourceType: "Device", patient: { reference: `Patient/${p.id}` }, deviceName: [{ name: "Ring", type: "user-friendly-name" }] });
    const pipeline = await createPipeline(t, definition([trigger(), { id: "ips", type: "ips.summary" }], [edge("start", "ips", "event", "input")]));
    const { body } = await run(t, pipeline, { reference: `Patient/${p.id}` });
    expect(body.status).toBe("completed");
    const doc = documentOf(body);
    expect(checkIpsDocument(doc)).toEqual([]);
    // The port's fullUrls are rewritten to urns, references with them: the document stands alone.
    expect(doc.entry!.every((e) => e.fullUrl!.startsWith("urn:uuid:"))).toBe(true);
    const types = doc.entry!.map((e) => e.resource!.resourceType);
    expect(types).toEqual(expect.arrayContaining(["Composition", "Patient", "AllergyIntolerance", "DeviceUseStatement", "Device"]));
    const allergy = doc.entry!.find((e) => e.resource!.resourceType === "AllergyIntolerance")!.resource as unknown as { patient: { reference: string } };
    expect(allergy.patient.reference).toBe(doc.entry![1]!.fullUrl);
  });

  it("summarises the Bundle an HL7 v2 conversion produced, without storing anything", async () => {
    const t = await createTenant();
    const pipeline = await createPipeline(
      t,
      definition([trigger(), { id: "fhir", type: "hl7.to_fhir", config: { store: false } }, { id: "ips", type: "ips.summary" }], [edge("start", "fhir", "event", "message"), edge("fhir", "ips", "bundle", "input")]),
    );
    const { body } = await run(t, pipeline, { message: ADT });
    expect(body.status).toBe("completed");
    const doc = documentOf(body);
    expect(checkIpsDocument(doc)).toEqual([]);
    expect(doc.entry!.some((e) => e.resource!.resourceType === "AllergyIntolerance")).toBe(true);
  });

  it("fails clearly on input it cannot summarise, and on another organization's patient", async () => {
    const a = await createTenant();
    const b = await createTenant();
    const p = await post(a, { resourceType: "Patient", name: [{ family: "A" }] });
    const pipeline = await createPipeline(b, definition([trigger(), { id: "ips", type: "ips.summary" }], [edge("start", "ips", "event", "input")]));
    const bad = await run(b, pipeline, { something: 1 });
    expect(bad.body.status).toBe("failed");
    expect(bad.body.node_results.ips?.error?.code).toBe("IPS_INPUT_INVALID");
    const other = await run(b, pipeline, { patient_id: p.id });
    expect(other.body.status).toBe("failed");
    expect(other.body.node_results.ips?.error?.code).toBe("NOT_FOUND");
  });
});
