// Batch and transaction Bundles: atomicity, urn:uuid and conditional references, conditional
// create/update, response order, and tenant isolation of conditional matching.
import { describe, expect, it } from "vitest";
import type { Bundle } from "../../src/features/fhir/port";
import { eventually } from "../support/eventually";
import { createTenant } from "../support/tenants";
import { ids, post, search } from "./support";

const pid = "urn:uuid:61ebe359-bfdc-4613-8bf2-c5e300945f0a";

function hl7StyleTransaction(mrn: string, family: string): Bundle {
  return {
    resourceType: "Bundle",
    type: "transaction",
    entry: [
      {
        fullUrl: pid,
        resource: { resourceType: "Patient", identifier: [{ system: "urn:mrn", value: mrn }], name: [{ family }] },
        request: { method: "PUT", url: `Patient?identifier=urn:mrn|${mrn}` },
      },
      {
        fullUrl: "urn:uuid:0c3151bd-1cbf-4d64-b04d-cd9187a4c6e0",
        resource: { resourceType: "Encounter", status: "in-progress", class: { code: "IMP" }, subject: { reference: pid }, identifier: [{ system: "urn:visit", value: `${mrn}-V1` }] },
        request: { method: "POST", url: "Encounter", ifNoneExist: `identifier=urn:visit|${mrn}-V1` },
      },
      { request: { method: "GET", url: `Patient?identifier=urn:mrn|${mrn}` } },
    ],
  };
}

describe("transactions", () => {
  it("resolves conditional PUT, ifNoneExist POST and urn:uuid references, answering in order", async () => {
    const t = await createTenant();
    const res = await t.fetch(`/fhir/r4/${t.orgId}`, { method: "POST", json: hl7StyleTransaction("M1", "First") });
    expect(res.status).toBe(200);
    const out = (await res.json()) as Bundle;
    expect(out.type).toBe("transaction-response");
    expect(out.entry!.map((e) => e.response!.status)).toEqual(["201 Created", "201 Created", "200 OK"]);
    const patientId = out.entry![0]!.resource!.id!;
    expect(out.entry![1]!.resource).toMatchObject({ subject: { reference: `Patient/${patientId}` } });
    expect((out.entry![2]!.resource as Bundle).entry!.map((e) => e.resource!.id)).toEqual([patientId]);

    // Re-sending the same message updates the patient and leaves the encounter alone.
    const again = (await (await t.fetch(`/fhir/r4/${t.orgId}`, { method: "POST", json: hl7StyleTransaction("M1", "Second") })).json()) as Bundle;
    expect(again.entry!.map((e) => e.response!.status)).toEqual(["200 OK", "200 OK", "200 OK"]);
    expect(again.entry![0]!.resource).toMatchObject({ id: patientId, name: [{ family: "Second" }], meta: { versionId: "2" } });
    expect(await ids(t, "Encounter?identifier=urn:visit|M1-V1")).toHaveLength(1);
  });

  it("a conditional PUT that matches nothing writes the id its body names: a new version of an existing resource, or a new one", async () => {
    const t = await createTenant();
    const put = (id: string | undefined, mrn: string) => ({
      resource: { resourceType: "Patient", ...(id ? { id } : {}), identifier: [{ system: "urn:mrn", value: mrn }] },
      request: { method: "PUT", url: `Patient?identifier=urn:mrn|${mrn}` },
    });
    const first = (await (await t.fetch(`/fhir/r4/${t.orgId}`, { method: "POST", json: { resourceType: "Bundle", type: "transaction", entry: [put("named-1", "N1"), put(undefined, "N2")] } })).json()) as Bundle;
    expect(first.entry!.map((e) => [e.response!.status, e.resource!.meta!.versionId])).toEqual([
      ["201 Created", "1"],
      ["201 Created", "1"],
    ]);
    expect(first.entry![0]!.resource!.id).toBe("named-1");
    // named-1 no longer matches the new identifier, but its id is in the body: it is updated, not re-created.
    const second = (await (await t.fetch(`/fhir/r4/${t.orgId}`, { method: "POST", json: { resourceType: "Bundle", type: "transaction", entry: [put("named-1", "N3")] } })).json()) as Bundle;
    expect(second.entry![0]).toMatchObject({ response: { status: "200 OK" }, resource: { id: "named-1", meta: { versionId: "2" } } });
  });

  it("commits a transaction larger than one statement's JSON chunk, indexed and audited in full", async () => {
    const t = await createTenant();
    // 400 Observations with 4 KB notes: ~2 MB of content, several history/current/index chunks.
    const note = "n".repeat(4096);
    const entry = Array.from({ length: 400 }, (_, i) => ({
      resource: { resourceType: "Observation", status: "final", code: { coding: [{ system: "http://loinc.org", code: `big-${i % 7}` }] }, note: [{ text: note }], valueQuantity: { value: i, unit: "mg" } },
      request: { method: "POST", url: "Observation" },
    }));
    const res = await t.fetch(`/fhir/r4/${t.orgId}`, { method: "POST", json: { resourceType: "Bundle", type: "transaction", entry } });
    expect(res.status).toBe(200);
    const out = (await res.json()) as Bundle;
    expect(out.entry!.every((e) => e.response!.status === "201 Created")).toBe(true);
    expect((await search(t, "Observation?_summary=count")).total).toBe(400);
    expect((await search(t, "Observation?code=http://loinc.org|big-3&_summary=count")).total).toBe(57);
    expect((await search(t, "Observation?value-quantity=ge390&_summary=count")).total).toBe(10);
    const last = out.entry![399]!.resource!;
    expect(((await (await t.fetch(`/fhir/r4/${t.orgId}/Observation/${last.id}`)).json()) as { note: { text: string }[] }).note[0]!.text).toBe(note);
    // One AuditEvent per entry, and one for the transaction itself, committed with the writes.
    expect((await search(t, "AuditEvent?subtype=create&_summary=count")).total).toBe(400);
    expect((await search(t, "AuditEvent?subtype=transaction&_summary=count")).total).toBe(1);
  });

  it("audits a conditional create that matched as such, inside the transaction's commit", async () => {
    const t = await createTenant();
    await t.fetch(`/fhir/r4/${t.orgId}`, { method: "POST", json: hl7StyleTransaction("A1", "One") });
    await t.fetch(`/fhir/r4/${t.orgId}`, { method: "POST", json: hl7StyleTransaction("A1", "One") });
    const events = await search(t, "AuditEvent?subtype=create&_count=50");
    const existing = (events.entry ?? []).filter((e) => (e.resource as { outcomeDesc?: string }).outcomeDesc === "existing");
    expect(existing).toHaveLength(1);
    expect((await search(t, "AuditEvent?subtype=read&_summary=count")).total).toBe(0);
  });

  it("is atomic: one invalid entry rolls back all writes", async () => {
    const t = await createTenant();
    const bundle: Bundle = {
      resourceType: "Bundle",
      type: "transaction",
      entry: [
        { resource: { resourceType: "Patient", name: [{ family: "Kept?" }] }, request: { method: "POST", url: "Patient" } },
        { resource: { resourceType: "Observation", status: "bogus", code: { text: "x" } }, request: { method: "POST", url: "Observation" } },
      ],
    };
    const res = await t.fetch(`/fhir/r4/${t.orgId}`, { method: "POST", json: bundle });
    expect(res.status).toBe(422);
    expect(await ids(t, "Patient")).toEqual([]);
  });

  it("resolves conditional references and rejects ambiguous ones", async () => {
    const t = await createTenant();
    const p = await post(t, { resourceType: "Patient", identifier: [{ system: "urn:mrn", value: "C1" }] });
    const ok = await t.fetch(`/fhir/r4/${t.orgId}`, {
      method: "POST",
      json: {
        resourceType: "Bundle",
        type: "transaction",
        entry: [{ resource: { resourceType: "Observation", status: "final", code: { text: "x" }, subject: { reference: "Patient?identifier=urn:mrn|C1" } }, request: { method: "POST", url: "Observation" } }],
      },
    });
    const body = (await ok.json()) as Bundle;
    expect(body.entry![0]!.resource).toMatchObject({ subject: { reference: `Patient/${p.id}` } });
    const missing = await t.fetch(`/fhir/r4/${t.orgId}`, {
      method: "POST",
      json: {
        resourceType: "Bundle",
        type: "transaction",
        entry: [{ resource: { resourceType: "Observation", status: "final", code: { text: "x" }, subject: { reference: "Patient?identifier=urn:mrn|NONE" } }, request: { method: "POST", url: "Observation" } }],
      },
    });
    expect(missing.status).toBe(412);
  });

  it("conditional matching in a transaction never sees another org's data", async () => {
    const a = await createTenant();
    const b = await createTenant();
    await a.fetch(`/fhir/r4/${a.orgId}`, { method: "POST", json: hl7StyleTransaction("SHARED", "OrgA") });
    const res = (await (await b.fetch(`/fhir/r4/${b.orgId}`, { method: "POST", json: hl7StyleTransaction("SHARED", "OrgB") })).json()) as Bundle;
    expect(res.entry!.map((e) => e.response!.status)).toEqual(["201 Created", "201 Created", "200 OK"]);
    const aPatients = await ids(a, "Patient?identifier=urn:mrn|SHARED");
    expect(aPatients).toHaveLength(1);
    const aPatient = (await (await a.fetch(`/fhir/r4/${a.orgId}/Patient/${aPatients[0]}`)).json()) as { name: { family: string }[] };
    expect(aPatient.name[0]!.family).toBe("OrgA");
  });
});

describe("batch", () => {
  it("PATCH entries take a FHIRPath Patch Parameters or a JSON Patch Binary, in a transaction and a batch", async () => {
    const t = await createTenant();
    const p = await post(t, { resourceType: "Patient", active: true, name: [{ family: "Patched" }] });
    const q = await post(t, { resourceType: "Patient", active: true, name: [{ family: "Other" }] });
    const fhirPath = (value: boolean) => ({ resourceType: "Parameters", parameter: [{ name: "operation", part: [{ name: "type", valueCode: "replace" }, { name: "path", valueString: "Patient.active" }, { name: "value", valueBoolean: value }] }] });
    const jsonPatch = { resourceType: "Binary", contentType: "application/json-patch+json", data: btoa(JSON.stringify([{ op: "add", path: "/gender", value: "female" }])) };
    const read = async (id: string) => (await (await t.fetch(`/fhir/r4/${t.orgId}/Patient/${id}`)).json()) as { active?: boolean; gender?: string; meta: { versionId: string } };
    const send = (type: string, entry: unknown[]) => t.fetch(`/fhir/r4/${t.orgId}`, { method: "POST", json: { resourceType: "Bundle", type, entry } });

    const tx = await send("transaction", [
      { resource: fhirPath(false), request: { method: "PATCH", url: `Patient/${p.id}` } },
      { resource: jsonPatch, request: { method: "PATCH", url: `Patient/${q.id}` } },
    ]);
    expect(tx.status, await tx.clone().text()).toBe(200);
    expect(((await tx.json()) as Bundle).entry!.map((e) => e.response!.status)).toEqual(["200 OK", "200 OK"]);
    expect(await read(p.id!)).toMatchObject({ active: false, meta: { versionId: "2" } });
    expect(await read(q.id!)).toMatchObject({ gender: "female", meta: { versionId: "2" } });

    // A failing FHIRPath Patch (here one changing the id) rolls the transaction back; a resource of another kind is refused.
    const failing = { resourceType: "Parameters", parameter: [{ name: "operation", part: [{ name: "type", valueCode: "replace" }, { name: "path", valueString: "Patient.id" }, { name: "value", valueId: "another" }] }] };
    const rolledBack = await send("transaction", [
      { resource: fhirPath(true), request: { method: "PATCH", url: `Patient/${q.id}` } },
      { resource: failing, request: { method: "PATCH", url: `Patient/${p.id}` } },
    ]);
    expect(rolledBack.status).toBe(422);
    expect((await read(q.id!)).active).toBe(true);
    expect((await send("transaction", [{ resource: { resourceType: "Patient" }, request: { method: "PATCH", url: `Patient/${p.id}` } }])).status).toBe(400);

    const batch = await send("batch", [{ resource: fhirPath(true), request: { method: "PATCH", url: `Patient/${p.id}` } }]);
    expect(((await batch.json()) as Bundle).entry!.map((e) => e.response!.status)).toEqual(["200 OK"]);
    expect((await read(p.id!)).active).toBe(true);
  });

  it("runs entries independently, reporting each outcome", async () => {
    const t = await createTenant();
    const p = await post(t, { resourceType: "Patient", name: [{ family: "Batch" }] });
    const res = await t.fetch(`/fhir/r4/${t.orgId}`, {
      method: "POST",
      json: {
        resourceType: "Bundle",
        type: "batch",
        entry: [
          { request: { method: "GET", url: `Patient/${p.id}` } },
          { request: { method: "GET", url: "Patient/does-not-exist" } },
          { resource: { resourceType: "Patient", gender: "nope" }, request: { method: "POST", url: "Patient" } },
          { resource: { resourceType: "Patient", name: [{ family: "New" }] }, request: { method: "POST", url: "Patient" } },
          { request: { method: "DELETE", url: `Patient/${p.id}` } },
        ],
      },
    });
    const out = (await res.json()) as Bundle;
    expect(out.type).toBe("batch-response");
    expect(out.entry!.map((e) => e.response!.status)).toEqual(["200 OK", "404", "422", "201 Created", "204 No Content"]);
    expect(out.entry![1]!.response!.outcome).toMatchObject({ resourceType: "OperationOutcome" });
  });
});

describe("malformed Bundles", () => {
  // The Bundle's shape is checked before anything reads its entries (the store, implementation
  // guides' checks and audits): each is a 400 OperationOutcome naming the element, nothing is stored.
  const shapes: [string, unknown, RegExp][] = [
    ["entry a string", "x", /Bundle\.entry must be an array/],
    ["entry an object", { request: { method: "POST", url: "Patient" } }, /Bundle\.entry must be an array/],
    ["entry a number", 5, /Bundle\.entry must be an array/],
    ["a null entry", [null], /Bundle\.entry\[0\] must be an object/],
    ["a string entry", [{ request: { method: "GET", url: "Patient" } }, "x"], /Bundle\.entry\[1\] must be an object/],
    ["an array entry", [[]], /Bundle\.entry\[0\] must be an object/],
    ["an entry without request", [{ resource: { resourceType: "Patient" } }], /Bundle\.entry\[0\]\.request is required/],
    ["a request that is a string", [{ request: "POST Patient" }], /Bundle\.entry\[0\]\.request must be an object/],
    ["a request without method", [{ request: { url: "Patient" }, resource: { resourceType: "Patient" } }], /Bundle\.entry\[0\]\.request\.method/],
    ["a request without url", [{ request: { method: "POST" }, resource: { resourceType: "Patient" } }], /Bundle\.entry\[0\]\.request\.url/],
    ["a numeric url", [{ request: { method: "GET", url: 7 } }], /Bundle\.entry\[0\]\.request\.url/],
    ["a numeric ifNoneExist", [{ request: { method: "POST", url: "Patient", ifNoneExist: 1 }, resource: { resourceType: "Patient" } }], /request\.ifNoneExist must be a string/],
    ["a resource that is a string", [{ request: { method: "POST", url: "Patient" }, resource: "Patient" }], /Bundle\.entry\[0\]\.resource must be a resource/],
    ["a resource that is null", [{ request: { method: "POST", url: "Patient" }, resource: null }], /Bundle\.entry\[0\]\.resource must be a resource/],
    ["a resource without resourceType", [{ request: { method: "POST", url: "Patient" }, resource: { name: [] } }], /Bundle\.entry\[0\]\.resource must be a resource/],
    ["a numeric fullUrl", [{ fullUrl: 3, request: { method: "POST", url: "Patient" }, resource: { resourceType: "Patient" } }], /Bundle\.entry\[0\]\.fullUrl must be a string/],
  ];

  for (const type of ["transaction", "batch"]) {
    it(`a ${type} of any malformed shape is a 400 naming the element, never a 500`, async () => {
      const t = await createTenant();
      for (const [what, entry, message] of shapes) {
        const res = await t.fetch(`/fhir/r4/${t.orgId}`, { method: "POST", json: { resourceType: "Bundle", type, entry } });
        const body = (await res.json()) as { resourceType: string; issue: { diagnostics: string; expression?: string[] }[] };
        expect({ what, status: res.status }).toEqual({ what, status: 400 });
        expect(body.resourceType).toBe("OperationOutcome");
        expect(body.issue.map((i) => `${i.expression?.join(" ") ?? ""} ${i.diagnostics}`).join("\n")).toMatch(message);
      }
      expect(await ids(t, "Patient")).toEqual([]);
    });
  }

  it("a Bundle whose meta.profile is not a list of strings is a 400 before any guide reads it", async () => {
    const t = await createTenant();
    for (const profile of ["https://profiles.ihe.net/ITI/MHD/StructureDefinition/IHE.MHD.Minimal.ProvideBundle", [7], [null]]) {
      const res = await t.fetch(`/fhir/r4/${t.orgId}`, { method: "POST", json: { resourceType: "Bundle", type: "transaction", meta: { profile }, entry: [] } });
      expect(res.status).toBe(400);
      expect(JSON.stringify(await res.json())).toMatch(/Bundle\.meta\.profile/);
    }
  });

  it("a transaction with a Folder whose elements have the wrong types is refused as the store refuses it, not a 500", async () => {
    const t = await createTenant();
    const folderCode = { coding: [{ system: "https://profiles.ihe.net/ITI/MHD/CodeSystem/MHDlistTypes", code: "folder" }] };
    const broken = [
      { resourceType: "List", status: "current", mode: "working", code: { coding: "folder" } },
      { resourceType: "List", status: "current", mode: "working", code: { coding: [null] } },
      { resourceType: "List", status: "current", mode: "working", code: folderCode, subject: "Patient/1", entry: "x" },
      { resourceType: "List", status: "current", mode: "working", code: folderCode, meta: { profile: "x" }, entry: [null] },
    ];
    for (const resource of broken) {
      const res = await t.fetch(`/fhir/r4/${t.orgId}`, { method: "POST", json: { resourceType: "Bundle", type: "transaction", entry: [{ resource, request: { method: "POST", url: "List" } }] } });
      expect({ resource, status: res.status }).toEqual({ resource, status: expect.toSatisfy((s: number) => s === 400 || s === 422) });
      expect(((await res.json()) as { resourceType: string }).resourceType).toBe("OperationOutcome");
    }
    expect(await ids(t, "List")).toEqual([]);
  });

  it("an MHD Provide Document Bundle whose SubmissionSet has the wrong types is refused and audited, not a 500", async () => {
    const t = await createTenant();
    const profile = ["https://profiles.ihe.net/ITI/MHD/StructureDefinition/IHE.MHD.Minimal.ProvideBundle"];
    const sets = [
      { resourceType: "List", code: { coding: "submissionset" }, identifier: "x", subject: 5 },
      { resourceType: "List", code: { coding: [{ code: "submissionset" }] }, identifier: "x", subject: { reference: 5 } },
      { resourceType: "List", code: { coding: [{ code: "submissionset" }] }, identifier: [null], subject: "Patient/1", extension: "x" },
    ];
    for (const resource of sets) {
      const res = await t.fetch(`/fhir/r4/${t.orgId}`, { method: "POST", json: { resourceType: "Bundle", type: "transaction", meta: { profile }, entry: [{ fullUrl: "urn:uuid:1", resource, request: { method: "POST", url: "List" } }] } });
      expect({ resource, status: res.status }).toEqual({ resource, status: expect.toSatisfy((s: number) => s === 400 || s === 422) });
    }
    expect(await ids(t, "List")).toEqual([]);
    // Each refusal is an ITI-65 AuditEvent with a failure outcome.
    const audits = await eventually(
      () => search(t, "AuditEvent?subtype=urn:ihe:event-type-code|ITI-65&_count=50"),
      (b) => (b.entry?.length ?? 0) >= sets.length,
    );
    expect(audits.entry!.map((e) => e.resource!.outcome)).toEqual(sets.map(() => "4"));
  });
});
