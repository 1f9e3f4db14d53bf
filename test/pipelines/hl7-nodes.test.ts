// The HL7 v2 node family run from the API: parse, ACK, and HL7 to FHIR in test mode.
import { describe, expect, it } from "vitest";
import { useMemoryFhir } from "../support/memory-fhir";
import { createPipeline, definition, edge, run, trigger } from "../support/pipelines";
import { createTenant } from "../support/tenants";

const ORU = [
  "MSH|^~\\&|LAB|GENHOSP|CDIS|CDIS|20260316101500||ORU^R01^ORU_R01|LAB777|P|2.5.1",
  "PID|1||4711^^^GENHOSP^MR||Musterfrau^Erika",
  "OBR|1||F-9|2345-7^Glucose^LN|||20260316100000",
  "OBX|1|NM|2345-7^Glucose [Mass/volume] in Serum or Plasma^LN||105|mg/dL^mg/dL^UCUM|70-99|H|||F",
].join("\r");

useMemoryFhir();

describe("HL7 nodes", () => {
  it("parses a message into JSON with decoded components", async () => {
    const t = await createTenant();
    const p = await createPipeline(t, definition([trigger(), { id: "parse", type: "hl7.parse" }], [edge("start", "parse", "event", "message")]));
    const { body } = await run(t, p, { message: ORU });
    expect(body.status).toBe("completed");
    const out = (body.outputs as { parse: { output: { message_type: string; control_id: string; segments: { name: string; fields: unknown[] }[] } } }).parse.output;
    expect(out).toMatchObject({ message_type: "ORU", control_id: "LAB777" });
    const obx = out.segments.find((s) => s.name === "OBX")!;
    // A field is a list of repetitions; a repetition lists its components.
    expect(obx.fields[2]).toEqual([["2345-7", "Glucose [Mass/volume] in Serum or Plasma", "LN"]]);
    expect(obx.fields[4]).toEqual(["105"]);
  });

  it("builds an ACK for the message's version", async () => {
    const t = await createTenant();
    const p = await createPipeline(t, definition([trigger(), { id: "ack", type: "hl7.ack", config: { code: "AE", text: "Unknown test" } }], [edge("start", "ack", "event", "message")]));
    const { body } = await run(t, p, { raw: ORU });
    const ack = (body.outputs as { ack: { ack: string } }).ack.ack;
    expect(ack).toMatch(/^MSH\|\^~\\&\|CDIS\|CDIS\|LAB\|GENHOSP\|/);
    expect(ack).toContain("MSA|AE|LAB777");
  });

  it("converts to a transaction Bundle and, in test mode, reports the write instead of making it", async () => {
    const t = await createTenant();
    const p = await createPipeline(t, definition([trigger(), { id: "fhir", type: "hl7.to_fhir" }], [edge("start", "fhir", "event", "message")]));
    const { body } = await run(t, p, { message: ORU }, { test_mode: true });
    expect(body.status).toBe("completed");
    const bundle = (body.outputs as { fhir: { bundle: { type: string; entry: { resource: { resourceType: string; valueQuantity?: unknown } }[] } } }).fhir.bundle;
    expect(bundle.type).toBe("transaction");
    const obs = bundle.entry.find((e) => e.resource.resourceType === "Observation")!.resource;
    expect(obs.valueQuantity).toMatchObject({ value: 105, unit: "mg/dL", system: "http://unitsofmeasure.org" });
    expect(body.node_results.fhir?.would_write?.[0]?.target).toBe("fhir:transaction");
  });

  it("fails the node with a clear error for input that is not HL7", async () => {
    const t = await createTenant();
    const p = await createPipeline(t, definition([trigger(), { id: "fhir", type: "hl7.to_fhir" }], [edge("start", "fhir", "event", "message")]));
    const { body } = await run(t, p, { message: "hello" }, { test_mode: true });
    expect(body.status).toBe("failed");
    expect(body.node_results.fhir?.error?.code).toBe("HL7_NO_MSH");
  });
});
