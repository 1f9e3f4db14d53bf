// MHD Folder rules on a Folder written on its own: a PUT (or POST, PATCH, conditional PUT, or a
// plain transaction) of a List with code folder is held to what ITI-65 checks of a Folder: an
// identifier (unless it declares the Minimal Folder profile), its patient, which never changes,
// and entries that are DocumentReferences of that patient the caller can read. Each refusal is a
// 400 OperationOutcome with the XDS code, and nothing is stored. Other Lists are plain FHIR.
import { describe, expect, it } from "vitest";
import type { Bundle, Resource } from "../../../src/features/fhir/port";
import { createTenant, type Tenant } from "../../support/tenants";
import { post } from "../../fhir/support";
import { provide, provideBundle } from "./support/mhd-bundle";

const FOLDER_CODE = { coding: [{ system: "https://profiles.ihe.net/ITI/MHD/CodeSystem/MHDlistTypes", code: "folder" }] };
type Folder = Resource & { entry: { item: { reference: string } }[]; meta: { versionId: string } };
type Outcome = { resourceType: string; issue: { details: { coding: { code: string }[] }; diagnostics: string }[] };

/** A patient with one provided (ITI-65) document; answers the DocumentReference's "DocumentReference/id". */
async function documentOf(t: Tenant, patient: string): Promise<string> {
  const r = await provide(t, await provideBundle(`Patient/${patient}`));
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body.entry![1]!.response!.location!.split("/_history")[0]!;
}

async function seed(t: Tenant) {
  const p = (await post(t, { resourceType: "Patient", name: [{ family: "Folder" }] })).id!;
  const q = (await post(t, { resourceType: "Patient", name: [{ family: "Other" }] })).id!;
  const [d1, d2, dq] = [await documentOf(t, p), await documentOf(t, p), await documentOf(t, q)];
  const folder = { resourceType: "List", status: "current", mode: "working", code: FOLDER_CODE, identifier: [{ system: "urn:ietf:rfc:3986", value: `urn:uuid:${crypto.randomUUID()}` }], subject: { reference: `Patient/${p}` }, entry: [{ item: { reference: d1 } }] };
  const created = await t.fetch(`/fhir/r4/${t.orgId}/List`, { method: "POST", json: folder });
  expect(created.status).toBe(201);
  const stored = (await created.json()) as Folder;
  return { p, q, d1, d2, dq, folder: stored };
}

const put = (t: Tenant, folder: Resource) => t.fetch(`/fhir/r4/${t.orgId}/List/${folder.id}`, { method: "PUT", json: folder });

async function refused(res: Response, code: string) {
  const body = (await res.json()) as Outcome;
  expect(res.status, JSON.stringify(body)).toBe(400);
  expect(body.resourceType).toBe("OperationOutcome");
  expect(body.issue.map((i) => i.details.coding[0]!.code)).toContain(code);
}

describe("MHD Folder rules on a Folder written on its own", () => {
  it("accepts a valid update and refuses each broken rule with its XDS code, storing nothing", async () => {
    const t = await createTenant();
    const s = await seed(t);
    const { meta: _, ...folder } = s.folder;
    const read = async () => (await (await t.fetch(`/fhir/r4/${t.orgId}/List/${s.folder.id}`)).json()) as Folder;

    // Adding a document of the same patient: stored.
    const added = await put(t, { ...folder, entry: [...s.folder.entry, { item: { reference: s.d2 } }] });
    expect(added.status).toBe(200);
    expect((await read()).entry.map((e) => e.item.reference)).toEqual([s.d1, s.d2]);
    const version = (await read()).meta.versionId;

    const cases: [string, Resource][] = [
      ["XDSPatientIdDoesNotMatch", { ...folder, entry: [{ item: { reference: s.dq } }] }], // another patient's document
      ["XDSPatientIdDoesNotMatch", { ...folder, subject: { reference: `Patient/${s.q}` }, entry: [] }], // moving the Folder
      ["XDSRegistryMetadataError", { ...folder, entry: [{ item: { reference: "DocumentReference/no-such-document" } }] }], // unresolvable
      ["XDSRegistryMetadataError", { ...folder, entry: [{ item: { reference: `Patient/${s.p}` } }] }], // not a DocumentReference
      ["XDSRegistryMetadataError", { ...folder, identifier: undefined }], // Comprehensive needs an identifier
      ["XDSRegistryMetadataError", { ...folder, subject: undefined }],
    ];
    for (const [code, body] of cases) await refused(await put(t, body), code);
    // status is R4's own requirement: the store's validation refuses it first.
    expect((await put(t, { ...folder, status: undefined })).status).toBe(422);
    // A patch and a conditional update are held to the same rules.
    const patch = await t.fetch(`/fhir/r4/${t.orgId}/List/${s.folder.id}`, {
      method: "PATCH",
      body: JSON.stringify([{ op: "add", path: "/entry/-", value: { item: { reference: s.dq } } }]),
      headers: { "content-type": "application/json-patch+json" },
    });
    await refused(patch, "XDSPatientIdDoesNotMatch");
    const conditional = await t.fetch(`/fhir/r4/${t.orgId}/List?_id=${s.folder.id}`, { method: "PUT", json: { ...folder, entry: [{ item: { reference: s.dq } }] } });
    await refused(conditional, "XDSPatientIdDoesNotMatch");
    expect((await read()).meta.versionId).toBe(version);

    // A Folder declaring the Minimal profile needs no identifier.
    const minimal = await put(t, { ...folder, identifier: undefined, meta: { profile: ["https://profiles.ihe.net/ITI/MHD/StructureDefinition/IHE.MHD.Minimal.Folder"] } });
    expect(minimal.status).toBe(200);
  });

  it("holds a new Folder and a plain transaction's Folder to the same rules; other Lists stay plain FHIR", async () => {
    const t = await createTenant();
    const s = await seed(t);
    const fresh = { resourceType: "List", status: "current", mode: "working", code: FOLDER_CODE, identifier: [{ system: "urn:ietf:rfc:3986", value: "urn:uuid:f-2" }] };
    await refused(await t.fetch(`/fhir/r4/${t.orgId}/List`, { method: "POST", json: { ...fresh, subject: { reference: "Patient/nobody" } } }), "XDSUnknownPatientId");

    const transaction = (entry: unknown[]): Bundle => ({
      resourceType: "Bundle",
      type: "transaction",
      entry: [{ resource: { ...s.folder, meta: undefined, entry }, request: { method: "PUT", url: `List/${s.folder.id}` } }],
    });
    const bad = await t.fetch(`/fhir/r4/${t.orgId}`, { method: "POST", json: transaction([{ item: { reference: s.dq } }]) });
    await refused(bad, "XDSPatientIdDoesNotMatch");
    const good = await t.fetch(`/fhir/r4/${t.orgId}`, { method: "POST", json: transaction([{ item: { reference: s.d2 } }]) });
    expect(good.status).toBe(200);

    // A List that is no Folder keeps plain FHIR rules.
    const plain = await t.fetch(`/fhir/r4/${t.orgId}/List`, { method: "POST", json: { resourceType: "List", status: "current", mode: "working", entry: [{ item: { reference: `Patient/${s.q}` } }] } });
    expect(plain.status).toBe(201);
  });

  it("never resolves another organization's documents or patients", async () => {
    const a = await createTenant();
    const b = await createTenant();
    const s = await seed(a);
    const pb = (await post(b, { resourceType: "Patient", name: [{ family: "B" }] })).id!;
    const folder = { resourceType: "List", status: "current", mode: "working", code: FOLDER_CODE, identifier: [{ system: "urn:ietf:rfc:3986", value: "urn:uuid:f-b" }] };
    // b cannot list a's document, nor file a Folder under a's patient.
    await refused(await b.fetch(`/fhir/r4/${b.orgId}/List`, { method: "POST", json: { ...folder, subject: { reference: `Patient/${pb}` }, entry: [{ item: { reference: s.d1 } }] } }), "XDSRegistryMetadataError");
    await refused(await b.fetch(`/fhir/r4/${b.orgId}/List`, { method: "POST", json: { ...folder, subject: { reference: `Patient/${s.p}` } } }), "XDSUnknownPatientId");
    // a's Folder id under b's base is b's own namespace: a new Folder there, held to b's data.
    const underB = await b.fetch(`/fhir/r4/${b.orgId}/List/${s.folder.id}`, { method: "PUT", json: { ...s.folder, meta: undefined, subject: { reference: `Patient/${pb}` } } });
    await refused(underB, "XDSRegistryMetadataError"); // its entry is a's document
    expect(((await (await a.fetch(`/fhir/r4/${a.orgId}/List/${s.folder.id}`)).json()) as Folder).entry.map((e) => e.item.reference)).toEqual([s.d1]);
  });
});
