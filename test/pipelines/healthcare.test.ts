// Healthcare nodes against an in-memory FHIR store behind the services seam, and
// the EHR fetch through a FHIR connector (outbound calls mocked, never sent).
import { afterEach, describe, expect, it, vi } from "vitest";
import { useMemoryFhir } from "../support/memory-fhir";
import { createPipeline, definition, edge, type NodeSpec, run, trigger } from "../support/pipelines";
import { createTenant, type Tenant } from "../support/tenants";

const fhirFor = useMemoryFhir();
afterEach(() => {
  vi.restoreAllMocks();
});

async function runOne(tenant: Tenant, nodes: NodeSpec[], connections: ReturnType<typeof edge>[], inputs: Record<string, unknown>) {
  const id = await createPipeline(tenant, definition([trigger(), ...nodes], connections));
  return (await run(tenant, id, inputs)).body;
}

describe("healthcare nodes", () => {
  it("create (and conditional create), read, search, update", async () => {
    const tenant = await createTenant();
    const store = fhirFor(tenant.orgId);
    const patient = { resourceType: "Patient", identifier: [{ system: "urn:mrn", value: "7" }], gender: "female" };
    const created = await runOne(tenant, [{ id: "c", type: "fhir.create", config: { if_none_exist: "identifier=urn:mrn|7" } }], [edge("start", "c", "event", "resource")], patient);
    expect(created.outputs).toMatchObject({ c: { outcome: "created", resource: { resourceType: "Patient" } } });
    const again = await runOne(tenant, [{ id: "c", type: "fhir.create", config: { if_none_exist: "identifier=urn:mrn|7" } }], [edge("start", "c", "event", "resource")], patient);
    expect(again.outputs).toMatchObject({ c: { outcome: "existing" } });
    expect(store.resources.size).toBe(1);
    const id = [...store.resources.values()][0]?.id as string;

    const read = await runOne(tenant, [{ id: "r", type: "fhir.read", config: { resource_type: "Patient", id_expression: "pid" } }], [edge("start", "r", "event")], { pid: id });
    expect(read.outputs).toMatchObject({ r: { resource: { id, gender: "female" } } });

    const search = await runOne(tenant, [{ id: "s", type: "fhir.search", config: { resource_type: "Patient", query_expression: "'identifier=' & sys & '|' & val" } }], [edge("start", "s", "event")], { sys: "urn:mrn", val: "7" });
    expect(search.outputs).toMatchObject({ s: { bundle: { resourceType: "Bundle", type: "searchset", total: 1 } } });

    const updated = await runOne(tenant, [{ id: "u", type: "fhir.update", config: {} }], [edge("start", "u", "event", "resource")], { resourceType: "Patient", id, gender: "male" });
    expect(updated.outputs).toMatchObject({ u: { outcome: "updated", resource: { gender: "male", meta: { versionId: "2" } } } });

    const missing = await runOne(tenant, [{ id: "r", type: "fhir.read", config: { resource_type: "Patient", id: "nope" } }], [edge("start", "r", "event")], {});
    expect(missing).toMatchObject({ status: "failed", error: { code: "NOT_FOUND", node_type: "fhir.read" } });
    const notResource = await runOne(tenant, [{ id: "u", type: "fhir.update", config: {} }], [edge("start", "u", "event", "resource")], { hello: 1 });
    expect(notResource.error).toMatchObject({ code: "NOT_A_RESOURCE" });
  });

  it("code mapping reads its ConceptMap from the store by id", async () => {
    const tenant = await createTenant();
    await fhirFor(tenant.orgId).update({
      resourceType: "ConceptMap",
      id: "lab-to-loinc",
      group: [{ source: "urn:lab", target: "http://loinc.org", element: [{ code: "K", target: [{ code: "2823-3", equivalence: "equivalent" }] }], unmapped: { mode: "fixed", code: "LP-unknown" } }],
    });
    const node: NodeSpec = { id: "cm", type: "data.concept_map", config: { concept_map_id: "lab-to-loinc", system_expression: "system" } };
    const hit = await runOne(tenant, [node], [edge("start", "cm", "event")], { system: "urn:lab", code: "K" });
    expect((hit.outputs as { cm: { mapped: { targets: unknown[] } } }).cm.mapped.targets).toEqual([{ system: "http://loinc.org", code: "2823-3", equivalence: "equivalent" }]);
    const fallback = await runOne(tenant, [node], [edge("start", "cm", "event")], { system: "urn:lab", code: "ZZ" });
    expect((fallback.outputs as { cm: { mapped: { targets: { code: string; equivalence: string }[] } } }).cm.mapped.targets[0]).toMatchObject({ code: "LP-unknown", equivalence: "inexact" });
  });

  it("conditional upsert creates once, then updates the same resource", async () => {
    const tenant = await createTenant();
    const store = fhirFor(tenant.orgId);
    const node: NodeSpec = { id: "up", type: "fhir.upsert", config: { query_expression: '"identifier=" & identifier[0].system & "|" & identifier[0].value' } };
    const first = await runOne(tenant, [node], [edge("start", "up", "event", "resource")], { resourceType: "Patient", identifier: [{ system: "urn:mrn", value: "1" }], gender: "male" });
    expect(first.outputs).toMatchObject({ up: { outcome: "created" } });
    const second = await runOne(tenant, [node], [edge("start", "up", "event", "resource")], { resourceType: "Patient", identifier: [{ system: "urn:mrn", value: "1" }], gender: "other" });
    expect(second.outputs).toMatchObject({ up: { outcome: "updated", resource: { gender: "other" } } });
    expect(store.resources.size).toBe(1);
  });

  it("validate routes by the store validator's OperationOutcome", async () => {
    const tenant = await createTenant();
    const conns = [edge("start", "v", "event", "resource")];
    const ok = await runOne(tenant, [{ id: "v", type: "fhir.validate", config: {} }], conns, { resourceType: "Patient", gender: "female" });
    expect(Object.keys((ok.outputs as Record<string, Record<string, unknown>>).v ?? {})).toEqual(["valid"]);
    const bad = await runOne(tenant, [{ id: "v", type: "fhir.validate", config: {} }], conns, { resourceType: "Observation" });
    const invalid = (bad.outputs as { v: { invalid: { outcome: { issue: { diagnostics: string }[] } } } }).v.invalid;
    expect(invalid.outcome.issue.map((i) => i.diagnostics)).toEqual(["Observation.status is required", "Observation.code is required"]);
  });

  it("bundle split and merge (transaction entries with requests)", async () => {
    const tenant = await createTenant();
    const bundle = {
      resourceType: "Bundle",
      type: "collection",
      entry: [{ resource: { resourceType: "Patient", id: "p" } }, { resource: { resourceType: "Observation", status: "final" } }, { resource: { resourceType: "Observation", id: "o2", status: "final" } }],
    };
    const out = await runOne(
      tenant,
      [
        { id: "split", type: "fhir.bundle_split", config: { resource_types: ["Observation"] } },
        { id: "merge", type: "fhir.bundle_merge", config: { type: "transaction" } },
      ],
      [edge("start", "split", "event", "bundle"), edge("split", "merge", "resources", "resources")],
      bundle,
    );
    const merged = (out.outputs as { merge: { bundle: { type: string; entry: { request: { method: string; url: string } }[] } } }).merge.bundle;
    expect(merged.type).toBe("transaction");
    expect(merged.entry.map((e) => e.request)).toEqual([
      { method: "POST", url: "Observation" },
      { method: "PUT", url: "Observation/o2" },
    ]);
  });

  it("fetches from a connected EHR with the connector's auth, follows paging, normalizes and upserts idempotently", async () => {
    const tenant = await createTenant();
    const store = fhirFor(tenant.orgId);
    const connector = (await (await tenant.fetch("/api/connectors", { method: "POST", json: { name: "EHR", type: "fhir", endpoint: "https://ehr.test/fhir", credentials: { token: "secret-token-123" } } })).json()) as { id: string };
    const seen: { url: string; auth: string | null }[] = [];
    vi.spyOn(globalThis, "fetch").mockImplementation(async (input, init) => {
      const url = String(input);
      seen.push({ url, auth: new Headers(init?.headers).get("authorization") });
      if (url === "https://ehr.test/fhir/Patient?family=smith") {
        return Response.json({ resourceType: "Bundle", type: "searchset", link: [{ relation: "next", url: "https://ehr.test/fhir/Patient?page=2" }], entry: [{ resource: { resourceType: "Patient", id: "e1", meta: { versionId: "9" }, name: [{ family: "Smith" }] }, search: { mode: "match" } }] });
      }
      if (url === "https://ehr.test/fhir/Patient?page=2") {
        return Response.json({ resourceType: "Bundle", type: "searchset", entry: [{ resource: { resourceType: "Patient", id: "e2", name: [{ family: "Smith" }] } }] });
      }
      return new Response("unexpected", { status: 500 });
    });
    const nodes: NodeSpec[] = [{ id: "ehr", type: "fhir.ehr_fetch", config: { connector_id: connector.id, resource_type: "Patient", query: "family=smith" } }];
    const first = await runOne(tenant, nodes, [edge("start", "ehr", "event")], {});
    expect(first.status).toBe("completed");
    expect((first.outputs as { ehr: { summary: unknown } }).ehr.summary).toEqual({ fetched: 2, created: 2, updated: 0, pages: 2 });
    expect(seen.every((s) => s.auth === "Bearer secret-token-123")).toBe(true);
    const stored = [...store.resources.values()];
    expect(stored).toHaveLength(2);
    expect(stored[0]).toMatchObject({ identifier: [{ system: `urn:cdis:connector:${connector.id}`, value: "e1" }], meta: { source: "https://ehr.test/fhir/Patient/e1", versionId: "1" } });
    expect(stored[0]?.id).not.toBe("e1");

    const second = await runOne(tenant, nodes, [edge("start", "ehr", "event")], {});
    expect((second.outputs as { ehr: { summary: unknown } }).ehr.summary).toEqual({ fetched: 2, created: 0, updated: 2, pages: 2 });
    expect(store.resources.size).toBe(2);
  });

  it("rewrites references into the EHR's id space: to local copies when fetched, else to the EHR's absolute URL", async () => {
    const tenant = await createTenant();
    const store = fhirFor(tenant.orgId);
    const connector = (await (await tenant.fetch("/api/connectors", { method: "POST", json: { name: "EHR", type: "fhir", endpoint: "https://ehr.test/fhir", credentials: { token: "t-12345678" } } })).json()) as { id: string };
    const observation = (id: string, subject: string) => ({ resource: { resourceType: "Observation", id, status: "final", code: { text: "HR" }, subject: { reference: subject }, performer: [{ reference: "https://other.test/fhir/Practitioner/x" }] } });
    vi.spyOn(globalThis, "fetch").mockImplementation(async (input) => {
      const url = String(input);
      if (url === "https://ehr.test/fhir/Patient?_id=e1") return Response.json({ resourceType: "Bundle", type: "searchset", entry: [{ resource: { resourceType: "Patient", id: "e1", name: [{ family: "Ref" }] } }] });
      if (url === "https://ehr.test/fhir/Observation?patient=e1") {
        return Response.json({ resourceType: "Bundle", type: "searchset", entry: [observation("o1", "Patient/e1"), observation("o2", "https://ehr.test/fhir/Patient/e9")] });
      }
      return new Response("unexpected", { status: 500 });
    });
    const fetchNode = (resource_type: string, query: string): NodeSpec[] => [{ id: "ehr", type: "fhir.ehr_fetch", config: { connector_id: connector.id, resource_type, query } }];
    expect((await runOne(tenant, fetchNode("Patient", "_id=e1"), [edge("start", "ehr", "event")], {})).status).toBe("completed");
    const localPatient = store.matches("Patient", `identifier=urn:cdis:connector:${connector.id}|e1`)[0]!;
    expect((await runOne(tenant, fetchNode("Observation", "patient=e1"), [edge("start", "ehr", "event")], {})).status).toBe("completed");
    const subjects = Object.fromEntries(
      store.matches("Observation", "").map((o) => [(o.identifier as { value: string }[])[0]!.value, (o.subject as { reference: string }).reference]),
    );
    expect(subjects).toEqual({ o1: `Patient/${localPatient.id}`, o2: "https://ehr.test/fhir/Patient/e9" });
    // References to other servers are left as they are.
    expect((store.matches("Observation", "")[0]!.performer as { reference: string }[])[0]!.reference).toBe("https://other.test/fhir/Practitioner/x");
  });
});
