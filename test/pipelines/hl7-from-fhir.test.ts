// hl7.from_fhir in pipelines: HL7 v2 in, FHIR (stored), HL7 v2 out over MLLP to the loopback
// receiver (test/setup/mllp-server.ts); its errors in the node's documented shape; its
// catalog entry; and that it reads nothing but its input (so no other organization's data).
import { describe, expect, inject, it } from "vitest";
import { parseMessage } from "../../src/standards/hl7v2/parse";
import { createPipeline, definition, edge, run, trigger } from "../support/pipelines";
import { createTenant, type Tenant } from "../support/tenants";

/** A PV1 segment with the given fields at their numbers (PV1-n is the n-th field after the name). */
function pv1(fields: Record<number, string>): string {
  const out: string[] = ["PV1"];
  for (let n = 1; n <= Math.max(...Object.keys(fields).map(Number)); n++) out.push(fields[n] ?? "");
  return out.join("|");
}

const ADT = [
  "MSH|^~\\&|EPIC|GENHOSP|CDIS|CDIS|20260316101500+0100||ADT^A01^ADT_A01|IN-1|P|2.5.1",
  "EVN|A01|20260316101500+0100",
  "PID|1||4711^^^GENHOSP^MR~123-45-6789^^^SSA^SS||O'Neil \\T\\ Sons^Erika^M||19640812|F|||Hauptstr. 1^^Berlin^^10115^DE^H||030 1234567^PRN^PH",
  pv1({ 1: "1", 2: "I", 3: "W4^12^B^GENHOSP", 10: "MED", 19: "V-99^^^GENHOSP^VN", 44: "20260316083000+0100" }),
].join("\r");

const MSH = { sending_application: "CDIS", sending_facility: "GENHOSP", receiving_application: "RIS", receiving_facility: { namespace: "HOSP", universal_id: "1.2.840.99", universal_id_type: "ISO" }, version: "2.5.1", control_id_prefix: "CDIS" };

async function mllpConnector(t: Tenant) {
  const res = await t.fetch("/api/connectors", { method: "POST", json: { name: "RIS", type: "mllp", endpoint: `mllp://127.0.0.1:${inject("mllpPort")}` } });
  expect(res.status).toBe(201);
  return ((await res.json()) as { id: string }).id;
}

async function received(): Promise<string[]> {
  return ((await (await fetch(inject("mllpControlUrl"))).json()) as { received: string[] }).received;
}

/** Outputs of the pipeline's last nodes. */
interface Outputs {
  out?: { message: string; warnings: string[] };
  send?: { output: { ack_code: string; control_id: string } };
}

describe("hl7.from_fhir", () => {
  it("hl7.to_fhir → store → hl7.from_fhir → hl7.send: the receiver gets the patient and visit back as ADT^A08 and ACKs AA", async () => {
    const t = await createTenant();
    const connector = await mllpConnector(t);
    const p = await createPipeline(
      t,
      definition(
        [trigger(), { id: "fhir", type: "hl7.to_fhir", config: { store: true } }, { id: "out", type: "hl7.from_fhir", config: { message_type: "ADT^A08", msh: MSH } }, { id: "send", type: "hl7.send", config: { connector_id: connector } }],
        [edge("start", "fhir", "event", "message"), edge("fhir", "out", "bundle", "bundle"), edge("out", "send", "message", "message")],
      ),
    );
    const { body } = await run(t, p, { message: ADT });
    expect(body.status).toBe("completed");
    const outputs = body.outputs as Outputs;
    expect(outputs.send!.output.ack_code).toBe("AA");
    const control = outputs.send!.output.control_id;
    expect(control).toMatch(/^CDIS[0-9A-F]{16}$/);
    const sent = (await received()).find((m) => m.split("\r")[0]!.split("|")[9] === control);
    expect(sent, "the receiver got the message the node built").toBeDefined();
    const m = parseMessage(sent!);
    expect(m.header.field(9).text).toBe("ADT^A08^ADT_A01");
    expect(m.header.field(6).text).toBe("HOSP^1.2.840.99^ISO");
    expect(m.segment("PID")!.field(3).text).toBe("4711^^^GENHOSP^MR~123-45-6789^^^SSA^SS");
    expect(m.get("PID-5.1")).toBe("O'Neil & Sons");
    expect(m.segment("PID")!.toString()).toContain("O'Neil \\T\\ Sons^Erika^M");
    expect([m.get("PID-7"), m.get("PID-8"), m.get("PV1-2"), m.get("PV1-19"), m.get("PV1-44")]).toEqual(["19640812", "F", "I", "V-99", "20260316083000+0100"]);
    // the stored transaction answered, and the message the node built was not read from it
    expect(body.node_results.fhir?.status).toBe("completed");
  });

  it("writes an ORU^R01 from converted results: value, units, reference range, flag; nothing left out", async () => {
    const t = await createTenant();
    const p = await createPipeline(
      t,
      definition([trigger(), { id: "fhir", type: "hl7.to_fhir", config: { store: false } }, { id: "out", type: "hl7.from_fhir", config: { message_type: "ORU^R01", msh: MSH } }], [edge("start", "fhir", "event", "message"), edge("fhir", "out", "bundle", "bundle")]),
    );
    const oru = [ADT.split("\r")[0]!.replace("ADT^A01^ADT_A01", "ORU^R01^ORU_R01"), ADT.split("\r")[2]!, "OBR|1||F-9|2345-7^Glucose^LN|||20260316100000", "OBX|1|NM|2345-7^Glucose^LN||105|mg/dL^mg/dL^UCUM|70-99|H|||F"].join("\r");
    const first = (await run(t, p, { message: oru })).body;
    expect(first.status).toBe("completed");
    const message = parseMessage((first.outputs as Outputs).out!.message);
    expect(message.get("OBX-5")).toBe("105");
    expect(message.get("OBX-6")).toBe("mg/dL");
    expect(message.get("OBX-7")).toBe("70-99");
    expect(message.get("OBX-8")).toBe("H");
    expect((first.outputs as Outputs).out!.warnings).toEqual([]);
  });

  it("fails with HL7_MISSING_RESOURCE naming what is missing, in the node's error shape", async () => {
    const t = await createTenant();
    const p = await createPipeline(t, definition([trigger(), { id: "out", type: "hl7.from_fhir", config: { message_type: "ADT^A08" } }], [edge("start", "out", "event", "bundle")]));
    const { body } = await run(t, p, { resourceType: "Bundle", type: "collection", entry: [{ resource: { resourceType: "Encounter", status: "planned", class: { code: "AMB" } } }] });
    expect(body.status).toBe("failed");
    expect(body.node_results.out?.error).toMatchObject({ code: "HL7_MISSING_RESOURCE", node_type: "hl7.from_fhir" });
    expect(JSON.stringify(body.node_results.out?.error)).toMatch(/needs a Patient/);
    const notFhir = (await run(t, p, { hello: "world" })).body;
    expect(notFhir.node_results.out?.error?.code).toBe("HL7_INVALID_INPUT");
  });

  it("reads nothing but its input: a reference to another organization's Patient is not resolved", async () => {
    const a = await createTenant();
    const created = await a.fetch(`/fhir/r4/${a.orgId}/Patient`, { method: "POST", headers: { "content-type": "application/fhir+json" }, body: JSON.stringify({ resourceType: "Patient", identifier: [{ system: "urn:mrn", value: "A-1" }], name: [{ family: "Secret" }] }) });
    expect(created.status).toBe(201);
    const id = ((await created.json()) as { id: string }).id;
    const b = await createTenant();
    const input = { resourceType: "Bundle", type: "collection", entry: [{ resource: { resourceType: "Observation", status: "final", code: { text: "x" }, subject: { reference: `Patient/${id}` }, valueString: "y" } }] };
    for (const t of [b, a]) {
      const p = await createPipeline(t, definition([trigger(), { id: "out", type: "hl7.from_fhir", config: { message_type: "ORU^R01" } }], [edge("start", "out", "event", "bundle")]));
      const { body } = await run(t, p, input);
      expect(body.status).toBe("failed");
      expect(body.node_results.out?.error?.code).toBe("HL7_MISSING_RESOURCE");
      expect(JSON.stringify(body)).not.toContain("Secret");
    }
  });

  it("is in the node catalog with its ports, config schema and documentation", async () => {
    const t = await createTenant();
    const res = await t.fetch("/api/node-catalog/hl7.from_fhir");
    expect(res.status).toBe(200);
    const node = (await res.json()) as { category: string; inputs: unknown[]; outputs: unknown[]; config_schema: { properties: Record<string, { enum?: string[] }>; required: string[] }; documentation: { summary: string } };
    expect(node.category).toBe("healthcare");
    expect(node.inputs).toEqual([expect.objectContaining({ name: "bundle", type: "fhir-bundle" })]);
    expect(node.outputs).toContainEqual(expect.objectContaining({ name: "message", type: "hl7-message" }));
    expect(node.config_schema.required).toContain("message_type");
    expect(node.config_schema.properties.message_type?.enum).toEqual(["ADT^A01", "ADT^A03", "ADT^A04", "ADT^A08", "ADT^A40", "ORU^R01", "ORM^O01", "OML^O21", "SIU^S12", "MDM^T01", "MDM^T02"]);
    expect(node.documentation.summary).toMatch(/HL7_MISSING_RESOURCE/);
    // a config the schema refuses is refused when the pipeline is saved
    const bad = await t.fetch("/api/pipelines", { method: "POST", json: { name: "p", description: "", definition: definition([trigger(), { id: "out", type: "hl7.from_fhir", config: { message_type: "VXU^V04" } }], [edge("start", "out", "event", "bundle")]) } });
    expect(bad.status).toBe(400);
  });
});
