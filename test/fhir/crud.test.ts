// FHIR REST CRUD: create/read/vread/update/patch/delete, versioning headers, preconditions,
// Prefer, history, validation and tenant isolation of all of them.
import { describe, expect, it } from "vitest";
import { createKey, authedFetch, createTenant } from "../support/tenants";

const patient = (family = "Chalmers") => ({ resourceType: "Patient", name: [{ family, given: ["Peter"] }], gender: "male", birthDate: "1974-12-25" });

describe("FHIR CRUD", () => {
  it("creates with a server id, reads back with ETag/Last-Modified, and versions updates", async () => {
    const t = await createTenant();
    const res = await t.fetch(`/fhir/r4/${t.orgId}/Patient`, { method: "POST", json: { ...patient(), id: "client-id" } });
    expect(res.status).toBe(201);
    expect(res.headers.get("content-type")).toContain("application/fhir+json");
    const created = (await res.json()) as { id: string; meta: { versionId: string; lastUpdated: string } };
    expect(created.id).not.toBe("client-id");
    expect(created.meta.versionId).toBe("1");
    expect(res.headers.get("etag")).toBe('W/"1"');
    expect(res.headers.get("location")).toMatch(new RegExp(`/fhir/r4/${t.orgId}/Patient/${created.id}/_history/1$`));

    const read = await t.fetch(`/fhir/r4/${t.orgId}/Patient/${created.id}`);
    expect(read.status).toBe(200);
    expect(read.headers.get("etag")).toBe('W/"1"');
    expect(read.headers.get("last-modified")).toBe(new Date(created.meta.lastUpdated).toUTCString());
    expect(await read.json()).toMatchObject({ name: [{ family: "Chalmers" }] });

    const upd = await t.fetch(`/fhir/r4/${t.orgId}/Patient/${created.id}`, {
      method: "PUT",
      headers: { "if-match": 'W/"1"' },
      json: { ...patient("Windsor"), id: created.id },
    });
    expect(upd.status).toBe(200);
    expect(upd.headers.get("etag")).toBe('W/"2"');

    const stale = await t.fetch(`/fhir/r4/${t.orgId}/Patient/${created.id}`, {
      method: "PUT",
      headers: { "if-match": 'W/"1"' },
      json: { ...patient("Stale"), id: created.id },
    });
    expect(stale.status).toBe(412);
    expect(await stale.json()).toMatchObject({ resourceType: "OperationOutcome" });

    const v1 = await t.fetch(`/fhir/r4/${t.orgId}/Patient/${created.id}/_history/1`);
    expect(await v1.json()).toMatchObject({ name: [{ family: "Chalmers" }], meta: { versionId: "1" } });
    const hist = (await (await t.fetch(`/fhir/r4/${t.orgId}/Patient/${created.id}/_history`)).json()) as { type: string; entry: { resource: { meta: { versionId: string } } }[] };
    expect(hist.type).toBe("history");
    expect(hist.entry.map((e) => e.resource.meta.versionId)).toEqual(["2", "1"]);
  });

  it("create-on-update, Prefer return=minimal and OperationOutcome", async () => {
    const t = await createTenant();
    const put = await t.fetch(`/fhir/r4/${t.orgId}/Patient/p-1`, { method: "PUT", json: { ...patient(), id: "p-1" } });
    expect(put.status).toBe(201);
    const minimal = await t.fetch(`/fhir/r4/${t.orgId}/Patient`, { method: "POST", headers: { prefer: "return=minimal" }, json: patient() });
    expect(minimal.status).toBe(201);
    expect(await minimal.text()).toBe("");
    expect(minimal.headers.get("location")).toContain("/Patient/");
    const oo = await t.fetch(`/fhir/r4/${t.orgId}/Patient`, { method: "POST", headers: { prefer: "return=OperationOutcome" }, json: patient() });
    expect(await oo.json()).toMatchObject({ resourceType: "OperationOutcome", issue: [{ severity: "information" }] });
  });

  it("soft-deletes: read after delete is 410, vread of the old version still works, history shows the deletion", async () => {
    const t = await createTenant();
    const created = (await (await t.fetch(`/fhir/r4/${t.orgId}/Patient`, { method: "POST", json: patient() })).json()) as { id: string };
    const del = await t.fetch(`/fhir/r4/${t.orgId}/Patient/${created.id}`, { method: "DELETE" });
    expect(del.status).toBe(204);
    expect((await t.fetch(`/fhir/r4/${t.orgId}/Patient/${created.id}`)).status).toBe(410);
    expect((await t.fetch(`/fhir/r4/${t.orgId}/Patient/${created.id}/_history/1`)).status).toBe(200);
    expect((await t.fetch(`/fhir/r4/${t.orgId}/Patient/${created.id}/_history/2`)).status).toBe(410);
    const hist = (await (await t.fetch(`/fhir/r4/${t.orgId}/Patient/${created.id}/_history`)).json()) as { entry: { request: { method: string } }[] };
    expect(hist.entry.map((e) => e.request.method)).toEqual(["DELETE", "POST"]);
    expect((await t.fetch(`/fhir/r4/${t.orgId}/Patient/nope`)).status).toBe(404);
    expect((await t.fetch(`/fhir/r4/${t.orgId}/NotAType/1`)).status).toBe(404);
  });

  it("JSON Patch applies, a failed test op is 422, and If-Match guards it", async () => {
    const t = await createTenant();
    const created = (await (await t.fetch(`/fhir/r4/${t.orgId}/Patient`, { method: "POST", json: patient() })).json()) as { id: string };
    const url = `/fhir/r4/${t.orgId}/Patient/${created.id}`;
    const ok = await t.fetch(url, {
      method: "PATCH",
      headers: { "content-type": "application/json-patch+json" },
      body: JSON.stringify([{ op: "replace", path: "/gender", value: "female" }, { op: "add", path: "/name/0/given/-", value: "Jim" }]),
    });
    expect(ok.status).toBe(200);
    expect(await ok.json()).toMatchObject({ gender: "female", name: [{ given: ["Peter", "Jim"] }], meta: { versionId: "2" } });
    const bad = await t.fetch(url, {
      method: "PATCH",
      headers: { "content-type": "application/json-patch+json" },
      body: JSON.stringify([{ op: "test", path: "/gender", value: "male" }]),
    });
    expect(bad.status).toBe(422);
    const invalid = await t.fetch(url, {
      method: "PATCH",
      headers: { "content-type": "application/json-patch+json", "if-match": 'W/"1"' },
      body: JSON.stringify([{ op: "replace", path: "/gender", value: "x" }]),
    });
    expect(invalid.status).toBe(412);
  });

  it("FHIRPath Patch (Parameters) replaces and adds elements", async () => {
    const t = await createTenant();
    const created = (await (await t.fetch(`/fhir/r4/${t.orgId}/Patient`, { method: "POST", json: patient() })).json()) as { id: string };
    const res = await t.fetch(`/fhir/r4/${t.orgId}/Patient/${created.id}`, {
      method: "PATCH",
      headers: { "content-type": "application/fhir+json" },
      body: JSON.stringify({
        resourceType: "Parameters",
        parameter: [
          { name: "operation", part: [{ name: "type", valueCode: "replace" }, { name: "path", valueString: "Patient.gender" }, { name: "value", valueCode: "female" }] },
          { name: "operation", part: [{ name: "type", valueCode: "add" }, { name: "path", valueString: "Patient" }, { name: "name", valueString: "active" }, { name: "value", valueBoolean: true }] },
        ],
      }),
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ gender: "female", active: true, meta: { versionId: "2" } });
  });

  it("validates on write with expression locations, and $validate reports without storing", async () => {
    const t = await createTenant();
    const res = await t.fetch(`/fhir/r4/${t.orgId}/Patient`, {
      method: "POST",
      json: { resourceType: "Patient", gender: "robot", birthDate: "1974-13-01", foo: 1, name: { family: "x" }, managingOrganization: { reference: "Patient/1" } },
    });
    expect(res.status).toBe(422);
    const oo = (await res.json()) as { issue: { expression: string[]; diagnostics: string }[] };
    const paths = oo.issue.map((i) => i.expression[0]);
    expect(paths).toEqual(expect.arrayContaining(["Patient.gender", "Patient.birthDate", "Patient.foo", "Patient.name", "Patient.managingOrganization.reference"]));
    const obs = await t.fetch(`/fhir/r4/${t.orgId}/Observation`, { method: "POST", json: { resourceType: "Observation", valueQuantity: { value: "x" } } });
    const obsIssues = ((await obs.json()) as { issue: { expression: string[] }[] }).issue.map((i) => i.expression[0]);
    expect(obsIssues).toEqual(expect.arrayContaining(["Observation.status", "Observation.code", "Observation.valueQuantity.value"]));
    const v = await t.fetch(`/fhir/r4/${t.orgId}/Patient/$validate`, { method: "POST", json: { resourceType: "Patient", gender: "robot" } });
    expect(v.status).toBe(200);
    expect(await v.json()).toMatchObject({ resourceType: "OperationOutcome", issue: [{ severity: "error", expression: ["Patient.gender"] }] });
    const bodyMismatch = await t.fetch(`/fhir/r4/${t.orgId}/Observation`, { method: "POST", json: patient() });
    expect(bodyMismatch.status).toBe(400);
    const notJson = await t.fetch(`/fhir/r4/${t.orgId}/Patient`, { method: "POST", headers: { "content-type": "application/json" }, body: "{" });
    expect(notJson.status).toBe(400);
  });

  it("answers 406 for a format it cannot write and honours _format=json (XML: xml-format.test.ts)", async () => {
    const t = await createTenant();
    expect((await t.fetch(`/fhir/r4/${t.orgId}/Patient?_format=ttl`)).status).toBe(406);
    expect((await t.fetch(`/fhir/r4/${t.orgId}/Patient`, { headers: { accept: "text/turtle" } })).status).toBe(406);
    expect((await t.fetch(`/fhir/r4/${t.orgId}/Patient?_format=json`)).status).toBe(200);
  });

  it("clients cannot write or delete AuditEvents", async () => {
    const t = await createTenant();
    const res = await t.fetch(`/fhir/r4/${t.orgId}/AuditEvent`, { method: "POST", json: { resourceType: "AuditEvent" } });
    expect(res.status).toBe(403);
    expect((await t.fetch(`/fhir/r4/${t.orgId}/AuditEvent/x`, { method: "DELETE" })).status).toBe(403);
  });

  it("enforces fhir:write for writes", async () => {
    const t = await createTenant();
    const { key } = await createKey(t.orgId, "clinician");
    const clinician = authedFetch(t.orgId, key);
    expect((await clinician(`/fhir/r4/${t.orgId}/Patient`, { method: "POST", json: patient() })).status).toBe(201);
  });
});

describe("FHIR tenant isolation (CRUD, history, conditional)", () => {
  it("another org's ids are 404 for read, vread, history, update-as-create, patch, delete", async () => {
    const a = await createTenant();
    const b = await createTenant();
    const created = (await (await a.fetch(`/fhir/r4/${a.orgId}/Patient`, { method: "POST", json: patient("Secret") })).json()) as { id: string };
    const foreign = `/fhir/r4/${b.orgId}/Patient/${created.id}`;
    expect((await b.fetch(foreign)).status).toBe(404);
    expect((await b.fetch(`${foreign}/_history/1`)).status).toBe(404);
    expect((await b.fetch(`${foreign}/_history`)).status).toBe(404);
    const patch = await b.fetch(foreign, { method: "PATCH", headers: { "content-type": "application/json-patch+json" }, body: "[]" });
    expect(patch.status).toBe(404);
    // PUT with the same id in org B creates B's own resource and leaves A's untouched.
    expect((await b.fetch(foreign, { method: "PUT", json: { ...patient("B"), id: created.id } })).status).toBe(201);
    expect((await b.fetch(foreign, { method: "DELETE" })).status).toBe(204);
    const stillA = (await (await a.fetch(`/fhir/r4/${a.orgId}/Patient/${created.id}`)).json()) as { name: { family: string }[]; meta: { versionId: string } };
    expect(stillA.name[0]!.family).toBe("Secret");
    expect(stillA.meta.versionId).toBe("1");
    // Org A's path with org B's key is refused before the store.
    expect((await b.fetch(`/fhir/r4/${a.orgId}/Patient/${created.id}`)).status).toBe(403);
    const sysHistory = (await (await b.fetch(`/fhir/r4/${b.orgId}/_history?_count=100`)).json()) as { entry: { fullUrl: string; resource?: { name?: { family: string }[] } }[] };
    expect(JSON.stringify(sysHistory)).not.toContain("Secret");
  });

  it("conditional create/update/delete never match another org's resources", async () => {
    const a = await createTenant();
    const b = await createTenant();
    const ident = { system: "urn:mrn", value: "M-1" };
    await a.fetch(`/fhir/r4/${a.orgId}/Patient`, { method: "POST", json: { ...patient("A"), identifier: [ident] } });
    const cc = await b.fetch(`/fhir/r4/${b.orgId}/Patient`, { method: "POST", headers: { "if-none-exist": "identifier=urn:mrn|M-1" }, json: { ...patient("B"), identifier: [ident] } });
    expect(cc.status).toBe(201);
    const again = await b.fetch(`/fhir/r4/${b.orgId}/Patient`, { method: "POST", headers: { "if-none-exist": "identifier=urn:mrn|M-1" }, json: { ...patient("B2"), identifier: [ident] } });
    expect(again.status).toBe(200);
    expect(await again.json()).toMatchObject({ name: [{ family: "B" }] });
    const cu = await b.fetch(`/fhir/r4/${b.orgId}/Patient?identifier=urn:mrn|M-1`, { method: "PUT", json: { ...patient("B3"), identifier: [ident] } });
    expect(cu.status).toBe(200);
    const cd = await b.fetch(`/fhir/r4/${b.orgId}/Patient?identifier=urn:mrn|M-1`, { method: "DELETE" });
    expect(cd.status).toBe(204);
    const aSearch = (await (await a.fetch(`/fhir/r4/${a.orgId}/Patient?identifier=urn:mrn|M-1`)).json()) as { total: number; entry: { resource: { name: { family: string }[]; meta: { versionId: string } } }[] };
    expect(aSearch.total).toBe(1);
    expect(aSearch.entry[0]!.resource.name[0]!.family).toBe("A");
    expect(aSearch.entry[0]!.resource.meta.versionId).toBe("1");
    const typo = await b.fetch(`/fhir/r4/${b.orgId}/Patient?identifierr=urn:mrn|M-1`, { method: "DELETE" });
    expect(typo.status).toBe(400);
  });
});
