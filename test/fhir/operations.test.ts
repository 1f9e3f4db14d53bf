// CapabilityStatement, OpenAPI listing, AuditEvents, Patient/$everything, Binary in R2,
// type/system history with _since and paging, and their tenant isolation.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { Bundle, Resource } from "../../src/features/fhir/port";
import { call, createTenant } from "../support/tenants";
import { ids, post, search } from "./support";
import { eventually } from "../support/eventually";

describe("metadata", () => {
  it("generates the CapabilityStatement from the implementation", async () => {
    const t = await createTenant();
    const res = await t.fetch(`/fhir/r4/${t.orgId}/metadata`);
    const cs = (await res.json()) as { fhirVersion: string; rest: { resource: { type: string; interaction: { code: string }[]; searchParam: { name: string }[] }[]; interaction: { code: string }[]; operation: { name: string }[] }[] };
    expect(cs.fhirVersion).toBe("4.0.1");
    const patient = cs.rest[0]!.resource.find((r) => r.type === "Patient")!;
    expect(patient.interaction.map((i) => i.code)).toEqual(expect.arrayContaining(["read", "vread", "create", "update", "patch", "delete", "search-type", "history-instance"]));
    expect(patient.searchParam.map((p) => p.name)).toEqual(expect.arrayContaining(["name", "identifier", "birthdate", "_id", "_lastUpdated", "_tag"]));
    const audit = cs.rest[0]!.resource.find((r) => r.type === "AuditEvent")!;
    expect(audit.interaction.map((i) => i.code)).not.toContain("create");
    expect(cs.rest[0]!.resource.length).toBeGreaterThan(140);
    expect(cs.rest[0]!.interaction.map((i) => i.code)).toEqual(["transaction", "batch", "search-system", "history-system"]);
    expect(cs.rest[0]!.operation.map((o) => o.name)).toEqual(["validate", "everything", "export", "status", "events", "get-ws-binding-token", "topic-list", "summary", "match"]);
  });

  it("labels FHIR JSON application/json for a client that asks only for that", async () => {
    const t = await createTenant();
    const type = async (path: string, accept?: string) =>
      (await t.fetch(`/fhir/r4/${t.orgId}/${path}`, accept ? { headers: { accept } } : {})).headers.get("content-type");
    expect(await type("metadata")).toBe("application/fhir+json; charset=utf-8");
    expect(await type("metadata", "application/json")).toBe("application/json; charset=utf-8");
    expect(await type("metadata", "application/fhir+json, application/json;q=0.9")).toBe("application/fhir+json; charset=utf-8");
    expect(await type("metadata", "*/*")).toBe("application/fhir+json; charset=utf-8");
    expect(await type("Patient/missing", "application/json")).toBe("application/json; charset=utf-8");
    expect(await type("Patient/missing")).toBe("application/fhir+json; charset=utf-8");
  });

  it("lists every FHIR interaction in the OpenAPI document", async () => {
    const doc = (await (await call("/api/openapi.json")).json()) as { paths: Record<string, Record<string, unknown>> };
    const fhirPaths = Object.keys(doc.paths).filter((p) => p.startsWith("/fhir/r4/{orgId}"));
    expect(fhirPaths).toEqual(expect.arrayContaining(["/fhir/r4/{orgId}/{type}", "/fhir/r4/{orgId}/{type}/{id}", "/fhir/r4/{orgId}/{type}/{id}/_history/{vid}", "/fhir/r4/{orgId}/metadata"]));
    expect(Object.keys(doc.paths["/fhir/r4/{orgId}/{type}/{id}"]!).sort()).toEqual(["delete", "get", "patch", "put"]);
  });
});

describe("AuditEvent", () => {
  it("records every interaction with who, what and outcome, searchable but not writable", async () => {
    const t = await createTenant();
    const p = await post(t, { resourceType: "Patient", name: [{ family: "Audited" }] });
    await t.fetch(`/fhir/r4/${t.orgId}/Patient/${p.id}`);
    await t.fetch(`/fhir/r4/${t.orgId}/Patient/missing`);
    await t.fetch(`/fhir/r4/${t.orgId}/Patient?name=aud`);
    await t.fetch(`/fhir/r4/${t.orgId}/Patient/${p.id}`, { method: "DELETE" });
    // The reads' audits arrive through the audit queue. The name search is also an IHE PDQm
    // query (ITI-78), whose audit names every Patient it returned.
    const events = await eventually(
      () => search(t, `AuditEvent?entity=Patient/${p.id}&_count=50`),
      (b) => (b.entry?.length ?? 0) >= 4,
    );
    const subtypes = events.entry!.map((e) => (e.resource as unknown as { subtype: { code: string }[] }).subtype[0]!.code).sort();
    expect(subtypes).toEqual(["ITI-78", "create", "delete", "read"]);
    const read = events.entry!.map((e) => e.resource as Resource & { agent: { who: { identifier: { value: string } }; role: { text: string }[] }[]; outcome: string; action: string }).find((e) => e.action === "R")!;
    expect(read.agent[0]!.who.identifier.value).toBe(t.keyId);
    expect(read.agent[0]!.role[0]!.text).toBe("admin");
    expect(read.outcome).toBe("0");
    const failures = await eventually(
      () => search(t, "AuditEvent?outcome=4"),
      (b) => (b.entry?.length ?? 0) >= 1,
    );
    expect(failures.entry!.map((e) => (e.resource as unknown as { entity: { what?: { reference: string } }[] }).entity[0]!.what?.reference)).toContain("Patient/missing");
    const searches = await search(t, "AuditEvent?subtype=search-type");
    expect(searches.entry!.length).toBeGreaterThanOrEqual(1);
    const byAgent = await ids(t, `AuditEvent?agent:identifier=urn:cdis:api-key|${t.keyId}&_count=100`);
    expect(byAgent.length).toBeGreaterThanOrEqual(5);
    const eventId = events.entry![0]!.resource!.id!;
    expect((await t.fetch(`/fhir/r4/${t.orgId}/AuditEvent/${eventId}`, { method: "PUT", json: { resourceType: "AuditEvent", id: eventId } })).status).toBe(403);
    expect((await t.fetch(`/fhir/r4/${t.orgId}/AuditEvent/${eventId}`, { method: "DELETE" })).status).toBe(403);
    expect((await t.fetch(`/fhir/r4/${t.orgId}/AuditEvent/${eventId}`)).status).toBe(200);
    // Another org sees none of these events.
    const other = await createTenant();
    expect(await ids(other, `AuditEvent?entity=Patient/${p.id}`)).toEqual([]);
    expect((await other.fetch(`/fhir/r4/${other.orgId}/AuditEvent/${eventId}`)).status).toBe(404);
  });
});

describe("Patient/$everything", () => {
  it("returns the patient compartment and referenced resources, never another org's", async () => {
    const t = await createTenant();
    const org = await post(t, { resourceType: "Organization", name: "Clinic" });
    const p = await post(t, { resourceType: "Patient", managingOrganization: { reference: `Organization/${org.id}` } });
    const other = await post(t, { resourceType: "Patient" });
    const enc = await post(t, { resourceType: "Encounter", status: "finished", class: { code: "AMB" }, subject: { reference: `Patient/${p.id}` }, serviceProvider: { reference: `Organization/${org.id}` } });
    const cond = await post(t, { resourceType: "Condition", subject: { reference: `Patient/${p.id}` }, encounter: { reference: `Encounter/${enc.id}` } });
    await post(t, { resourceType: "Condition", subject: { reference: `Patient/${other.id}` } });
    const b = await search(t, `Patient/${p.id}/$everything`);
    expect(b.entry!.map((e) => `${e.resource!.resourceType}/${e.resource!.id}`).sort()).toEqual(
      [`Patient/${p.id}`, `Encounter/${enc.id}`, `Condition/${cond.id}`, `Organization/${org.id}`].sort(),
    );
    const u = await createTenant();
    expect((await u.fetch(`/fhir/r4/${u.orgId}/Patient/${p.id}/$everything`)).status).toBe(404);
  });
});

describe("Binary", () => {
  it("keeps content in R2 and restores it on read and vread", async () => {
    const t = await createTenant();
    const data = btoa("x".repeat(300_000));
    const b = await post(t, { resourceType: "Binary", contentType: "text/plain", data });
    const back = (await (await t.fetch(`/fhir/r4/${t.orgId}/Binary/${b.id}`)).json()) as { data: string; meta: Record<string, unknown> };
    expect(back.data).toBe(data);
    expect(back.meta.extension).toBeUndefined();
    const row = await t.ctx.d1.prepare("SELECT length(content) AS n FROM fhir_resources WHERE org_id = ?1 AND id = ?2").bind(t.orgId, b.id).first<{ n: number }>();
    expect(row!.n).toBeLessThan(1000);
    const listed = await env.BLOBS.list({ prefix: `fhir/${t.orgId}/Binary/${b.id}/` });
    expect(listed.objects).toHaveLength(1);
  });
});

describe("history", () => {
  it("type and system history with _since, _count and next links, per tenant", async () => {
    const t = await createTenant();
    const other = await createTenant();
    await post(other, { resourceType: "Patient", name: [{ family: "Foreign" }] });
    const first = await post(t, { resourceType: "Patient", name: [{ family: "H0" }] });
    const since = (first.meta as { lastUpdated: string }).lastUpdated;
    await new Promise((r) => setTimeout(r, 5));
    for (let i = 1; i < 5; i++) await post(t, { resourceType: "Patient", name: [{ family: `H${i}` }] });
    await post(t, { resourceType: "Organization", name: "O" });
    const typeHist = await search(t, "Patient/_history?_count=3");
    expect(typeHist.entry).toHaveLength(3);
    const next = typeHist.link!.find((l) => l.relation === "next")!.url;
    const page2 = (await (await t.fetch(new URL(next).pathname + new URL(next).search)).json()) as Bundle;
    expect(page2.entry).toHaveLength(2);
    const families = [...typeHist.entry!, ...page2.entry!].map((e) => (e.resource as unknown as { name: { family: string }[] }).name[0]!.family);
    expect(families).toEqual(["H4", "H3", "H2", "H1", "H0"]);
    const sys = await search(t, `_history?_since=${encodeURIComponent(since)}&_count=100`);
    expect(sys.entry!.filter((e) => e.resource!.resourceType !== "AuditEvent").map((e) => e.resource!.resourceType)).toEqual(["Organization", "Patient", "Patient", "Patient", "Patient", "Patient"]);
    expect(JSON.stringify(sys)).not.toContain("Foreign");
    const stolen = await other.fetch(`/fhir/r4/${other.orgId}/Patient/_history${new URL(next).search}`);
    expect(stolen.status).toBe(400);
  });
});

describe("operation bodies", () => {
  // Found by the malformed-input fuzz (seed 7): a body of JSON null reached $summary's handler (500).
  it("refuses JSON that is no resource (null, a number, a string, an array) on every POSTed operation with 400", async () => {
    const t = await createTenant();
    const patient = await post(t, { resourceType: "Patient", name: [{ family: "Body" }] });
    // Every operation that takes a body; $everything takes none and ignores one.
    const paths = [`Patient/${patient.id}/$summary`, "Patient/$match", "Patient/$validate", "$export"];
    for (const path of paths) {
      for (const body of ["null", "42", '"Parameters"', "[]"]) {
        const res = await t.fetch(`/fhir/r4/${t.orgId}/${path}`, { method: "POST", headers: { "content-type": "application/fhir+json", prefer: "respond-async" }, body });
        expect(res.status, `${path} with ${body}`).toBe(400);
        const outcome = (await res.json()) as { resourceType: string; issue: { diagnostics: string }[] };
        expect(outcome.resourceType).toBe("OperationOutcome");
        expect(outcome.issue[0]!.diagnostics).toMatch(/must be a FHIR resource/);
      }
    }
  });
});
