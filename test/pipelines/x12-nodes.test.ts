// The X12 node family (category claims) run from the API against the organization's real
// FHIR store: parse, validate with 999/TA1, X12 → FHIR stored idempotently, FHIR → X12
// with references read from the store, JSON → X12, and errors naming loop, segment, element.
import { env } from "cloudflare:workers";
import { describe, expect, inject, it } from "vitest";
import { createPipeline, definition, edge, run, trigger } from "../support/pipelines";
import { type Tenant, createTenant } from "../support/tenants";
import P837 from "../fixtures/x12/837P-subscriber.x12?raw";
import P837_ERRORS from "../fixtures/x12/837P-errors.x12?raw";
import R835 from "../fixtures/x12/835-payment.x12?raw";
import R835_DEPENDENT from "../fixtures/x12/835-dependent.x12?raw";
import P837_DEPENDENT from "../fixtures/x12/837P-dependent.x12?raw";

// biome-ignore lint/suspicious/noExplicitAny: reading node outputs
type Json = Record<string, any>;

async function oneNode(t: Tenant, type: string, config: Record<string, unknown>, port: string, inputs: Record<string, unknown>) {
  const p = await createPipeline(t, definition([trigger(), { id: "n", type, config }], [edge("start", "n", "event", port)]));
  return (await run(t, p, inputs)).body;
}

async function search(t: Tenant, query: string): Promise<Json[]> {
  const res = await t.fetch(`/fhir/r4/${t.orgId}/${query}`);
  expect(res.status).toBe(200);
  return (((await res.json()) as Json).entry ?? []).map((e: Json) => e.resource);
}

describe("X12 nodes", () => {
  it("parses an 837P into loops and answers it with an accepting 999", async () => {
    const t = await createTenant();
    const body = await oneNode(t, "x12.parse", {}, "interchange", { raw: P837 });
    expect(body.status).toBe("completed");
    const { output, ack } = (body.outputs as Json).n;
    expect(output.valid).toBe(true);
    const ix = output.interchanges[0];
    expect([ix.sender, ix.control, ix.groups[0].version, ix.groups[0].transactions[0].set]).toEqual(["NWBILLING", "000000101", "005010X222A1", "837P"]);
    const loops = JSON.stringify(ix.groups[0].transactions[0].loops);
    expect(loops).toContain('"loop":"2300"');
    expect(loops).toContain('{"id":"SV1","elements":[["HC","99213","25"],"100","UN","1","","",["1","2"]]}');
    expect(ack).toContain("AK9*A*1*1*1");
    // ISA14 = 1: the sender asked for a TA1.
    expect(ack).toMatch(/TA1\*000000101\*260115\*1230\*A\*000/);
  });

  it("validates: the 999 rejects the broken set, and fail_on_error routes the first issue with its place", async () => {
    const t = await createTenant();
    const body = await oneNode(t, "x12.validate", {}, "interchange", { raw: P837_ERRORS });
    const { ack, report } = (body.outputs as Json).n;
    expect(report.valid).toBe(false);
    expect(report.issues[0]).toMatchObject({ code: expect.any(String), segmentId: expect.any(String) });
    expect(ack).toMatch(/IK5\*R/);
    expect(ack).toMatch(/AK9\*R/);
    const p = await createPipeline(
      t,
      definition(
        [trigger(), { id: "v", type: "x12.validate", config: { fail_on_error: true }, on_error: "route" }, { id: "caught", type: "data.transform", config: { expression: "$" } }],
        [edge("start", "v", "event", "interchange"), edge("v", "caught", "error", "input")],
      ),
    );
    const routed = (await run(t, p, { raw: P837_ERRORS })).body;
    const error = (routed.outputs as Json).caught.output;
    expect(error.code).toMatch(/^X12_/);
    expect(error.message).toMatch(/at segment \d+ \([A-Z0-9]+\)/);
  });

  it("maps an 837P to a Claim with its parties, stores it, and a second run creates nothing twice", async () => {
    const t = await createTenant();
    const p = await createPipeline(t, definition([trigger(), { id: "fhir", type: "x12.to_fhir" }], [edge("start", "fhir", "event", "interchange")]));
    const first = (await run(t, p, { raw: P837 })).body;
    expect(first.status).toBe("completed");
    const [set] = (first.outputs as Json).fhir.bundles;
    expect(set).toMatchObject({ set: "837P", control: "0001", issues: [] });
    const claims = await search(t, "Claim");
    expect(claims).toHaveLength(1);
    expect(claims[0]).toMatchObject({ use: "claim", total: { value: 125.5 }, type: { coding: [{ code: "professional" }] } });
    const patient = (await search(t, "Patient"))[0]!;
    expect(patient.name[0]).toMatchObject({ family: "RIVERA", given: ["ELENA", "M"] });
    expect(claims[0]!.patient.reference).toBe(`Patient/${patient.id}`);
    await run(t, p, { raw: P837 });
    expect(await search(t, "Claim")).toHaveLength(1);
    expect(await search(t, "Patient")).toHaveLength(1);
  });

  it("an 835 whose dependent shares the subscriber's member id stores two Patients, each EOB on its own; a second run and an 837 for the dependent find them", async () => {
    const t = await createTenant();
    const p = await createPipeline(t, definition([trigger(), { id: "fhir", type: "x12.to_fhir" }], [edge("start", "fhir", "event", "interchange")]));
    expect((await run(t, p, { raw: R835_DEPENDENT })).body.status).toBe("completed");
    const patients = await search(t, "Patient");
    expect(patients.map((x) => x.name[0].given[0]).sort()).toEqual(["ELENA", "LUCAS"]);
    const eobs = await search(t, "ExplanationOfBenefit");
    const byPcn = (pcn: string) => eobs.find((e) => e.identifier.some((i: Json) => i.value === pcn))!;
    const lucas = patients.find((x) => x.name[0].given[0] === "LUCAS")!;
    const elena = patients.find((x) => x.name[0].given[0] === "ELENA")!;
    expect(byPcn("PCN3002").patient.reference).toBe(`Patient/${lucas.id}`);
    expect(byPcn("PCN3001").patient.reference).toBe(`Patient/${elena.id}`);
    const coverages = await search(t, "Coverage");
    expect(coverages).toHaveLength(2);
    const lucasCoverage = coverages.find((c) => c.beneficiary.reference === `Patient/${lucas.id}`)!;
    expect(lucasCoverage.subscriber.reference).toBe(`Patient/${elena.id}`);
    // Again, with the store resolver and without it (the conditional creates alone): nothing twice.
    expect((await run(t, p, { raw: R835_DEPENDENT })).body.status).toBe("completed");
    const bare = await createPipeline(t, definition([trigger(), { id: "fhir", type: "x12.to_fhir", config: { resolve_references: false } }], [edge("start", "fhir", "event", "interchange")]));
    expect((await run(t, bare, { raw: R835_DEPENDENT })).body.status).toBe("completed");
    expect(await search(t, "Patient")).toHaveLength(2);
    expect(await search(t, "Coverage")).toHaveLength(2);
    // An 837P dependent (no member id of its own) applied twice is one Patient, not two.
    await run(t, p, { raw: P837_DEPENDENT });
    await run(t, bare, { raw: P837_DEPENDENT });
    expect((await search(t, "Patient?family=NGUYEN")).map((x) => x.name[0].given[0]).sort()).toEqual(["MAI", "THANH"]);
    // Another organization sees none of them.
    const other = await createTenant();
    expect(await search(other, "Patient")).toEqual([]);
  });

  it("reads an interchange from the organization's files by key (an 837P file in R2 → Claim)", async () => {
    const t = await createTenant();
    await env.BLOBS.put(`orgs/${t.orgId}/files/inbox/claims.x12`, P837);
    const p = await createPipeline(t, definition([trigger(), { id: "fhir", type: "x12.to_fhir" }], [edge("start", "fhir", "event", "interchange")]));
    expect((await run(t, p, { key: "inbox/claims.x12" })).body.status).toBe("completed");
    expect(await search(t, "Claim")).toHaveLength(1);
    // Another organization's key names its own folder: nothing there.
    const other = await createTenant();
    const q = await createPipeline(other, definition([trigger(), { id: "fhir", type: "x12.to_fhir" }], [edge("start", "fhir", "event", "interchange")]));
    expect((await run(other, q, { key: "inbox/claims.x12" })).body.node_results.fhir?.error?.code).toBe("FILE_NOT_FOUND");
    expect((await run(other, q, { key: `../../${t.orgId}/files/inbox/claims.x12` })).body.node_results.fhir?.error?.code).toBe("FILE_KEY_INVALID");
  });

  it("maps an 835 to a PaymentReconciliation and ExplanationOfBenefits; a file with issues fails by default", async () => {
    const t = await createTenant();
    const p = await createPipeline(t, definition([trigger(), { id: "fhir", type: "x12.to_fhir" }], [edge("start", "fhir", "event", "interchange")]));
    expect((await run(t, p, { raw: R835 })).body.status).toBe("completed");
    expect(await search(t, "PaymentReconciliation")).toHaveLength(1);
    expect((await search(t, "ExplanationOfBenefit")).length).toBeGreaterThan(0);
    const bad = (await run(t, p, { raw: P837_ERRORS })).body;
    expect(bad.status).toBe("failed");
    expect(bad.node_results.fhir?.error?.code).toMatch(/^X12_/);
    const notX12 = (await run(t, p, { raw: "hello" })).body;
    expect(notX12.node_results.fhir?.error?.code).toBe("X12_NO_ISA");
  });

  it("writes a stored Claim back as an 837P, reading its references from the store", async () => {
    const t = await createTenant();
    const load = await createPipeline(t, definition([trigger(), { id: "fhir", type: "x12.to_fhir" }], [edge("start", "fhir", "event", "interchange")]));
    await run(t, load, { raw: P837 });
    const claim = (await search(t, "Claim"))[0]!;
    const config = { sender: "NWBILLING", receiver: "CASCADEHP", control_number: 555, submitter: { name: "NORTHWIND BILLING SERVICES", id: "NWB001", contact_name: "DANA ROSS", phone: "5555550100" }, receiver_party: { name: "CASCADE HEALTH PLAN", id: "CHP0001" } };
    const body = await oneNode(t, "x12.from_fhir", config, "resource", claim);
    expect(body.status).toBe("completed");
    const x12 = (body.outputs as Json).n.x12 as string;
    expect(x12).toMatch(/^ISA\*00\*.{10}\*00\*.{10}\*ZZ\*NWBILLING {6}\*ZZ\*CASCADEHP {6}\*/);
    expect(x12).toContain("*000000555*");
    expect(x12).toContain("CLM*PCN1001*125.5***11:B:1*Y*A*Y*Y~");
    expect(x12).toContain("NM1*IL*1*RIVERA*ELENA*M***MI*CHP123456789~");
    // It reads back clean.
    const check = await oneNode(t, "x12.validate", {}, "interchange", { raw: x12 });
    expect((check.outputs as Json).n.report).toMatchObject({ valid: true, issues: [] });
    const incomplete = await oneNode(t, "x12.from_fhir", { sender: "A", receiver: "B" }, "resource", claim);
    expect(incomplete.node_results.n?.error?.code).toBe("X12_CONFIG_INCOMPLETE");
  });

  it("builds X12 from parse output byte-equal, and from the short form", async () => {
    const t = await createTenant();
    const p = await createPipeline(t, definition([trigger(), { id: "parse", type: "x12.parse" }, { id: "build", type: "x12.build" }], [edge("start", "parse", "event", "interchange"), edge("parse", "build", "output", "json")]));
    const body = (await run(t, p, { raw: P837 })).body;
    const built = (body.outputs as Json).build;
    expect(built.x12).toBe(P837.replace(/\n/g, "").trim());
    expect(built.report.valid).toBe(true);
    const short = await oneNode(t, "x12.build", {}, "json", { sender: "S", receiver: "R", control: 3, sets: [{ set: "999", version: "005010X231A1", segments: [{ id: "AK1", elements: ["HC", "1", "005010X222A1"] }] }] });
    expect((short.outputs as Json).n.x12).toMatch(/ST\*999\*0001\*005010X231A1~AK1\*HC\*1\*005010X222A1~SE\*3\*0001~GE\*1\*3~IEA\*1\*000000003~$/);
    const bad = await oneNode(t, "x12.build", {}, "json", { sender: "S", receiver: "R", sets: [{ set: "999", version: "005010X231A1", segments: [{ id: "AK1", elements: ["H*C"] }] }] });
    expect(bad.node_results.n?.error?.code).toBe("X12_DELIMITER_IN_DATA");
  });
});

describe("X12 send", () => {
  async function connector(t: Tenant) {
    const res = await t.fetch("/api/connectors", { method: "POST", json: { name: "clearinghouse", type: "http", endpoint: inject("clearinghouseUrl"), auth: { kind: "bearer" }, credentials: { token: "ch-token" } } });
    expect(res.status).toBe(201);
    return ((await res.json()) as { id: string }).id;
  }
  const last = async () => (await (await fetch(`${inject("clearinghouseUrl")}/last`)).json()) as { path: string; authorization: string; contentType: string };

  it("posts the raw interchange or JSON {x12} with the connector's auth and reads the 999/TA1 answer", async () => {
    const t = await createTenant();
    const id = await connector(t);
    const raw = await oneNode(t, "x12.send", { connector_id: id, path: "raw" }, "interchange", { raw: P837 });
    expect(raw.status).toBe("completed");
    expect((raw.outputs as Json).n.output).toMatchObject({ status: 200, ta1: ["A"], ak9: ["A"] });
    expect(await last()).toEqual({ path: "/raw", authorization: "Bearer ch-token", contentType: "application/edi-x12" });
    const json = await oneNode(t, "x12.send", { connector_id: id, path: "json", body: "json" }, "interchange", { raw: P837 });
    expect((json.outputs as Json).n.output.acknowledgment).toContain("ST*999*");
    expect((await last()).contentType).toBe("application/json");
  });

  it("fails with X12_REJECTED on a rejecting 999, X12_SEND_FAILED on an HTTP error, and sends nothing in test mode", async () => {
    const t = await createTenant();
    const id = await connector(t);
    const rejected = await oneNode(t, "x12.send", { connector_id: id, path: "raw" }, "interchange", { raw: P837_ERRORS });
    expect(rejected.node_results.n?.error?.code).toBe("X12_REJECTED");
    const down = await oneNode(t, "x12.send", { connector_id: id, path: "down" }, "interchange", { raw: P837 });
    expect(down.node_results.n?.error?.code).toBe("X12_SEND_FAILED");
    const p = await createPipeline(t, definition([trigger(), { id: "n", type: "x12.send", config: { connector_id: id, path: "test-mode" } }], [edge("start", "n", "event", "interchange")]));
    const dry = (await run(t, p, { raw: P837 }, { test_mode: true })).body;
    expect(dry.node_results.n?.would_write?.[0]?.target).toBe(`x12:${id}`);
    expect((await last()).path).not.toBe("/test-mode");
    // Another organization's connector is not found.
    const other = await createTenant();
    const foreign = await oneNode(other, "x12.send", { connector_id: id }, "interchange", { raw: P837 });
    expect(foreign.node_results.n?.error?.code).toBe("CONNECTOR_NOT_FOUND");
  });
});
