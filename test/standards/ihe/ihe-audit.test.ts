// IHE audit profiles: ITI-65 (ProvideBundle Recipient), ITI-66/67 (Find Responder), ITI-68
// (Retrieve Responder), PDQm ITI-78 (Query Supplier), ITI-119 (Match Supplier) and IPS $summary
// (the FHIR operation audit) each leave their AuditEvent, through
// the audit queue, with the profile's type, subtype, action, agents and entities; a refused
// ITI-65 is audited as a failure; another organization sees none of them.
import { describe, expect, it } from "vitest";
import type { Bundle, Resource } from "../../../src/features/fhir/port";
import { eventually } from "../../support/eventually";
import { createTenant, type Tenant } from "../../support/tenants";
import { post, search } from "../../fhir/support";
import { docOf, provide, provideBundle } from "./support/mhd-bundle";

type Coding = { system?: string; code: string; display?: string };
interface Audit extends Resource {
  meta: { profile: string[] };
  type: Coding;
  subtype: Coding[];
  action: string;
  outcome: string;
  agent: { type: { coding: Coding[] }; who: { identifier?: { value: string }; display?: string }; requestor: boolean; network?: { address: string } }[];
  source: { site: string; observer: unknown };
  entity: { what?: { reference?: string; identifier?: { value?: string } }; type: Coding; role: Coding; query?: string; description?: string }[];
}

/** The IHE AuditEvent of `transaction`, once `n` have arrived through the queue. */
async function iheAudits(t: Tenant, transaction: string, n = 1): Promise<Audit[]> {
  const b = await eventually(
    () => search(t, `AuditEvent?subtype=urn:ihe:event-type-code|${transaction}&_count=50`),
    (x: Bundle) => (x.entry?.length ?? 0) >= n,
  );
  return (b.entry ?? []).map((e) => e.resource as Audit);
}

const roleOf = (a: Audit, code: string) => a.agent.find((g) => g.type.coding[0]!.code === code);
const entityOf = (a: Audit, role: string) => a.entity.find((e) => e.role.code === role);

function expectAgents(a: Audit, t: Tenant) {
  const client = roleOf(a, "110153")!;
  const server = roleOf(a, "110152")!;
  expect(client.requestor).toBe(true);
  expect(client.who.identifier!.value).toBe(t.keyId);
  expect(server.requestor).toBe(false);
  expect(server.network!.address).toBe("localhost");
  // val-audit-source: the server agent is the audit source.
  expect(server.who).toEqual(a.source.observer);
  expect(a.source.site).toBe(t.orgId);
}

describe("IHE AuditEvents of MHD and PDQm transactions", () => {
  it("records ITI-65, ITI-67, ITI-66, ITI-68 and ITI-78 per their audit profiles", async () => {
    const t = await createTenant();
    const p = await post(t, { resourceType: "Patient", identifier: [{ system: "urn:oid:1.2.3", value: "audit-1" }], name: [{ family: "Audited" }] });
    const provided = await provide(t, await provideBundle(`Patient/${p.id}`));
    expect(provided.status).toBe(200);
    const listId = provided.body.entry![0]!.response!.location!.split("/")[1];
    const docId = provided.body.entry![1]!.response!.location!.split("/")[1];

    const [iti65] = await iheAudits(t, "ITI-65");
    expect(iti65!.meta.profile).toEqual(["https://profiles.ihe.net/ITI/MHD/StructureDefinition/IHE.MHD.ProvideBundle.Audit.Recipient"]);
    expect(iti65).toMatchObject({ type: { system: "http://dicom.nema.org/resources/ontology/DCM", code: "110107" }, action: "C", outcome: "0" });
    expectAgents(iti65!, t);
    expect(entityOf(iti65!, "1")).toMatchObject({ what: { reference: `Patient/${p.id}` }, type: { code: "1" } });
    expect(entityOf(iti65!, "20")).toMatchObject({ what: { reference: `List/${listId}` }, type: { code: "2" } });

    await search(t, `DocumentReference?patient.identifier=urn:oid:1.2.3|audit-1&status=current`);
    const [iti67] = await iheAudits(t, "ITI-67");
    expect(iti67).toMatchObject({ type: { code: "110112" }, action: "E", outcome: "0", meta: { profile: ["https://profiles.ihe.net/ITI/MHD/StructureDefinition/IHE.MHD.FindDocumentReferences.Audit.Responder"] } });
    expectAgents(iti67!, t);
    expect(entityOf(iti67!, "1")!.what!.identifier).toEqual({ system: "urn:oid:1.2.3", value: "audit-1" });
    const query = entityOf(iti67!, "24")!;
    expect(atob(query.query!)).toContain("DocumentReference?patient.identifier=");

    await search(t, `List?patient=Patient/${p.id}&code=submissionset&status=current`);
    const [iti66] = await iheAudits(t, "ITI-66");
    expect(iti66).toMatchObject({ type: { code: "110112" }, action: "E" });
    expect(entityOf(iti66!, "1")!.what!.reference).toBe(`Patient/${p.id}`);

    const doc = (await (await t.fetch(`/fhir/r4/${t.orgId}/DocumentReference/${docId}`)).json()) as { content: { attachment: { url: string } }[] };
    const binaryPath = new URL(doc.content[0]!.attachment.url).pathname;
    expect((await t.fetch(binaryPath, { headers: { accept: "application/pdf" } })).status).toBe(200);
    const [iti68] = await iheAudits(t, "ITI-68");
    expect(iti68).toMatchObject({ type: { code: "110106" }, action: "R", outcome: "0", meta: { profile: ["https://profiles.ihe.net/ITI/MHD/StructureDefinition/IHE.MHD.RetrieveDocument.Audit.Responder"] } });
    expectAgents(iti68!, t);
    expect(entityOf(iti68!, "1")!.what!.reference).toBe(`Patient/${p.id}`);
    expect(entityOf(iti68!, "3")!.what!.reference).toBe(`Binary/${binaryPath.split("/").pop()}`);
    // An unsatisfiable Accept is a failed retrieve, audited as such.
    expect((await t.fetch(binaryPath, { headers: { accept: "image/png" } })).status).toBe(406);
    expect((await iheAudits(t, "ITI-68", 2)).map((a) => a.outcome).sort()).toEqual(["0", "4"]);

    await search(t, "Patient?family=Audited");
    const [iti78] = await iheAudits(t, "ITI-78");
    expect(iti78).toMatchObject({ type: { code: "110112" }, action: "E", meta: { profile: ["https://profiles.ihe.net/ITI/PDQm/StructureDefinition/IHE.PDQm.Query.Audit.Supplier"] } });
    expect(entityOf(iti78!, "1")!.what!.reference).toBe(`Patient/${p.id}`);
    expect(atob(entityOf(iti78!, "24")!.query!)).toBe("Patient?family=Audited");

    // Another organization sees none of these.
    const other = await createTenant();
    expect((await search(other, "AuditEvent?subtype=urn:ihe:event-type-code|ITI-65")).entry ?? []).toEqual([]);
  });

  it("records ITI-119 for $match and the FHIR operation audit for $summary, success and failure", async () => {
    const t = await createTenant();
    const p = await post(t, { resourceType: "Patient", identifier: [{ system: "urn:oid:1.2.3", value: "m-1" }], name: [{ family: "Matchable", given: ["Ann"] }], birthDate: "1970-01-02", gender: "female" });
    const body = { resourceType: "Parameters", parameter: [{ name: "resource", resource: { resourceType: "Patient", identifier: [{ system: "urn:oid:1.2.3", value: "m-1" }], name: [{ family: "Matchable", given: ["Ann"] }], birthDate: "1970-01-02" } }] };
    const matched = await t.fetch(`/fhir/r4/${t.orgId}/Patient/$match`, { method: "POST", body: JSON.stringify(body), headers: { "content-type": "application/fhir+json" } });
    expect(matched.status).toBe(200);
    const [iti119] = await iheAudits(t, "ITI-119");
    expect(iti119!.meta.profile).toEqual(["https://profiles.ihe.net/ITI/PDQm/StructureDefinition/IHE.PDQm.Match.Audit.Supplier"]);
    expect(iti119).toMatchObject({ type: { system: "http://terminology.hl7.org/CodeSystem/audit-event-type", code: "rest" }, action: "E", outcome: "0" });
    expect(iti119!.subtype).toEqual([
      { system: "urn:ihe:event-type-code", code: "ITI-119", display: "Patient Demographics Match" },
      { system: "http://hl7.org/fhir/restful-interaction", code: "search" },
    ]);
    expectAgents(iti119!, t);
    expect(JSON.parse(atob(entityOf(iti119!, "24")!.query!))).toEqual(body);
    expect(iti119!.entity.filter((e) => e.role.code === "1").map((e) => e.what!.reference)).toEqual([`Patient/${p.id}`]);
    // A refused $match (no resource) is audited as a failure.
    const refused = await t.fetch(`/fhir/r4/${t.orgId}/Patient/$match`, { method: "POST", body: JSON.stringify({ resourceType: "Parameters", parameter: [] }), headers: { "content-type": "application/fhir+json" } });
    expect(refused.status).toBe(400);
    expect((await iheAudits(t, "ITI-119", 2)).map((a) => a.outcome).sort()).toEqual(["0", "4"]);

    const summary = (await (await t.fetch(`/fhir/r4/${t.orgId}/Patient/${p.id}/$summary`)).json()) as Bundle;
    expect(summary.type).toBe("document");
    expect((await t.fetch(`/fhir/r4/${t.orgId}/Patient/$summary?identifier=urn:oid:1.2.3|nobody`)).status).toBe(404);
    const operations = async () => {
      const b = await search(t, "AuditEvent?subtype=http://hl7.org/fhir/restful-interaction|operation&_count=50");
      return (b.entry ?? []).map((e) => e.resource as Audit).filter((a) => a.entity.some((e) => (e as { name?: string }).name === "$summary"));
    };
    const summaries = await eventually(operations, (x: Audit[]) => x.length >= 2);
    const ok = summaries.find((a) => a.outcome === "0")!;
    expect(ok).toMatchObject({ type: { code: "rest" }, action: "E", subtype: [{ system: "http://hl7.org/fhir/restful-interaction", code: "operation" }] });
    expect(ok.meta?.profile).toBeUndefined();
    expectAgents(ok, t);
    expect(entityOf(ok, "1")!.what!.reference).toBe(`Patient/${p.id}`);
    expect(entityOf(ok, "24")!.description).toBe(`Patient/${p.id}/$summary`);
    expect(entityOf(ok, "3")!.what!.identifier).toEqual(summary.identifier);
    const failed = summaries.find((a) => a.outcome === "4")!;
    expect(entityOf(failed, "24")!.description).toBe("Patient/$summary?identifier=urn%3Aoid%3A1.2.3%7Cnobody");
    expect(entityOf(failed, "1")).toBeUndefined();

    // Another organization sees none of them.
    const other = await createTenant();
    expect((await search(other, "AuditEvent?subtype=urn:ihe:event-type-code|ITI-119")).entry ?? []).toEqual([]);
  });

  it("audits a refused ITI-65 as a failure, naming the SubmissionSet by its identifier", async () => {
    const t = await createTenant();
    const p = await post(t, { resourceType: "Patient", name: [{ family: "Refused" }] });
    const b = await provideBundle(`Patient/${p.id}`);
    delete (docOf(b) as Record<string, unknown>).type;
    expect((await provide(t, b)).status).toBe(400);
    const [iti65] = await iheAudits(t, "ITI-65");
    expect(iti65!.outcome).toBe("4");
    expect(entityOf(iti65!, "20")!.what!.identifier).toMatchObject({ system: "urn:ietf:rfc:3986" });
  });
});
