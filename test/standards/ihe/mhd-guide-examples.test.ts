// The IHE MHD guide's own ITI-65 example Bundles (test/fixtures/mhd/, rendered from the guide's
// FSH, see test/fixtures/README.md) sent as they are: Minimal with the Patient pushed in the
// Bundle, Comprehensive with a contained sourcePatientInfo, the replacement by PATCH
// (UpdateDocumentRefs), the complete Comprehensive one with a Folder and contained author and
// recipient, and the UnContained one referencing the directory's Practitioner and Organization.
// Each is accepted with a transaction-response in request order (201 + location per created entry,
// as the guide's ex-response-* examples have it); a mutated copy of each is refused with its XDS
// code and nothing stored; another organization does not know the guide's patient.
import { beforeEach, describe, expect, it } from "vitest";
import type { Bundle, BundleEntry, Resource } from "../../../src/features/fhir/port";
import complete from "../../fixtures/mhd/Bundle-ex-comprehensiveProvideDocumentBundleComplete.json";
import replace from "../../fixtures/mhd/Bundle-ex-comprehensiveProvideDocumentBundleReplace.json";
import simple from "../../fixtures/mhd/Bundle-ex-comprehensiveProvideDocumentBundleSimple.json";
import minimal from "../../fixtures/mhd/Bundle-ex-minimalProvideDocumentBundleSimple.json";
import unContained from "../../fixtures/mhd/Bundle-ex-unContainedComprehensiveProvideDocumentBundleComplete.json";
import { post, put } from "../../fhir/support";
import { createTenant, type Tenant } from "../../support/tenants";
import { provide } from "./support/mhd-bundle";

type Example = Bundle & { entry: BundleEntry[] };
const copy = (b: unknown) => structuredClone(b) as Example;
const count = async (t: Tenant, type: string) => ((await (await t.fetch(`/fhir/r4/${t.orgId}/${type}?_summary=count`)).json()) as Bundle).total;
const read = async (t: Tenant, ref: string) => (await (await t.fetch(`/fhir/r4/${t.orgId}/${ref}`)).json()) as Resource & Record<string, unknown>;
const codes = (r: Awaited<ReturnType<typeof provide>>) => r.body.issue?.map((i) => i.details.coding[0]!.code);

/** What the guide's examples reference on "a commonly accessible server": this organization's store here. */
async function seedDirectory(t: Tenant) {
  await put(t, { resourceType: "Patient", id: "ex-patient", identifier: [{ system: "http://example.org/patients", value: "mrn-1234" }], name: [{ family: "Schmidt", given: ["Dee"] }] });
  await put(t, { resourceType: "Practitioner", id: "ex-practitioner", name: [{ family: "Author" }] });
  await put(t, { resourceType: "Organization", id: "ex-organization", name: "my Hospital" });
  const earlier = { resourceType: "DocumentReference", status: "current", subject: { reference: "Patient/ex-patient" }, content: [{ attachment: { contentType: "text/plain", url: "http://example.org/earlier.txt" } }] };
  await put(t, { ...earlier, id: "ex-documentreference" });
  await put(t, { ...earlier, id: "ex-DocumentReferenceComprehensive" });
}

/** The transaction-response: one entry per request entry, in order, each with the status and the location of its type. */
function expectResponse(r: Awaited<ReturnType<typeof provide>>, request: Example, statuses: string[]) {
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  expect(r.body.type).toBe("transaction-response");
  expect(r.body.entry!.map((e) => e.response!.status)).toEqual(statuses);
  r.body.entry!.forEach((e, i) => {
    const url = request.entry[i]!.request!.url!;
    expect(e.response!.location, url).toMatch(new RegExp(`^${url.includes("/") ? url : `${url}/[^/]+`}/_history/\\d+$`));
  });
}

describe("the IHE MHD guide's ITI-65 example Bundles", () => {
  let t: Tenant;
  beforeEach(async () => {
    t = await createTenant();
    await seedDirectory(t);
  });

  it("accepts ex-minimalProvideDocumentBundleSimple: the pushed Patient created, the document its", async () => {
    const r = await provide(t, copy(minimal));
    expectResponse(r, copy(minimal), ["201 Created", "201 Created", "201 Created", "201 Created"]);
    const patient = r.body.entry![3]!.response!.location!.split("/_history")[0]!;
    const doc = await read(t, r.body.entry![1]!.response!.location!.split("/_history")[0]!);
    expect(doc.subject).toEqual({ reference: patient });
    const set = await read(t, r.body.entry![0]!.response!.location!.split("/_history")[0]!);
    expect((set.contained as Resource[])[0]).toMatchObject({ resourceType: "Practitioner", id: "in-practitioner2" });

    // Mutated: the hash no longer matches the Binary's bytes; the SubmissionSet without its sourceId.
    const tampered = copy(minimal);
    (tampered.entry[1]!.resource as unknown as { content: { attachment: { hash: string } }[] }).content[0]!.attachment.hash = "6OMXIUMAFYfLdQhEaqCS61GZWAk=";
    expect(codes(await provide(t, tampered))).toEqual(["XDSNonIdenticalHash"]);
    const anonymous = copy(minimal);
    anonymous.entry[0]!.resource!.extension = [];
    expect(codes(await provide(t, anonymous))).toEqual(["XDSRegistryMetadataError"]);
    expect(await count(t, "DocumentReference")).toBe(3);
  });

  it("accepts ex-comprehensiveProvideDocumentBundleSimple, keeping the contained sourcePatientInfo", async () => {
    const r = await provide(t, copy(simple));
    expectResponse(r, copy(simple), ["201 Created", "201 Created", "201 Created"]);
    const doc = await read(t, r.body.entry![1]!.response!.location!.split("/_history")[0]!);
    expect(doc.context).toMatchObject({ sourcePatientInfo: { reference: "#aaaaaaaa-bbbb-cccc-dddd-e00333300004" } });
    expect((doc.contained as Resource[])[0]).toMatchObject({ resourceType: "Patient", name: [{ family: "Schmidt" }] });
    const binary = r.body.entry![2]!.response!.location!.split("/_history")[0]!;
    expect((doc.content as { attachment: { url: string } }[])[0]!.attachment.url).toMatch(new RegExp(`/${binary}$`));

    // Mutated: sourcePatientInfo as a reference outside the DocumentReference (UnContained's way), and no attachment.language.
    const uncontained = copy(simple);
    const sent = uncontained.entry[1]!.resource as unknown as { contained?: unknown; context: { sourcePatientInfo: unknown }; content: { attachment: Record<string, unknown> }[] };
    sent.context.sourcePatientInfo = { reference: "Patient/ex-patient" };
    delete sent.contained;
    expect(codes(await provide(t, uncontained))).toEqual(["XDSRegistryMetadataError"]);
    const noLanguage = copy(simple);
    delete (noLanguage.entry[1]!.resource as unknown as typeof sent).content[0]!.attachment.language;
    expect(codes(await provide(t, noLanguage))).toEqual(["XDSRegistryMetadataError"]);
    expect(await count(t, "DocumentReference")).toBe(3); // the two seeded and the accepted one
  });

  it("accepts ex-comprehensiveProvideDocumentBundleReplace, its size corrected: the PATCH marks the replaced DocumentReference superseded", async () => {
    // As published the example says attachment.size 24, but its Binary ("Thanks for all the fish") is 23 bytes (its hash is right).
    const asPublished = await provide(t, copy(replace));
    expect(asPublished.body.issue!.map((i) => [i.details.coding[0]!.code, i.diagnostics])).toEqual([["XDSNonIdenticalSize", "attachment.size 24 but the Binary has 23 bytes"]]);
    expect((await read(t, "DocumentReference/ex-documentreference")).status).toBe("current");
    const corrected = () => {
      const b = copy(replace);
      (b.entry[2]!.resource as unknown as { content: { attachment: { size: number } }[] }).content[0]!.attachment.size = 23;
      return b;
    };
    const r = await provide(t, corrected());
    expectResponse(r, corrected(), ["201 Created", "200 OK", "201 Created", "201 Created"]);
    expect(r.body.entry![1]!.response!.location).toBe("DocumentReference/ex-documentreference/_history/2");
    expect((await read(t, "DocumentReference/ex-documentreference")).status).toBe("superseded");
    const doc = await read(t, r.body.entry![2]!.response!.location!.split("/_history")[0]!);
    expect(doc.relatesTo).toEqual([{ code: "replaces", target: { reference: "DocumentReference/ex-documentreference" } }]);

    // Mutated: the PATCH left out (the replaced document would stay current), or naming another document.
    await put(t, { ...(await read(t, "DocumentReference/ex-documentreference")), id: "ex-documentreference", status: "current" });
    const unmarked = corrected();
    unmarked.entry.splice(1, 1);
    expect(codes(await provide(t, unmarked))).toEqual(["XDSRegistryMetadataError"]);
    const elsewhere = corrected();
    elsewhere.entry[1]!.request!.url = "DocumentReference/ex-DocumentReferenceComprehensive";
    expect(codes(await provide(t, elsewhere))).toEqual(["XDSRegistryMetadataError"]);
    expect((await read(t, "DocumentReference/ex-documentreference")).status).toBe("current");
    expect((await read(t, "DocumentReference/ex-DocumentReferenceComprehensive")).status).toBe("current");
    expect(await count(t, "DocumentReference")).toBe(3);
  });

  it("accepts ex-comprehensiveProvideDocumentBundleComplete: its Folder, contained author and contained intendedRecipient", async () => {
    const r = await provide(t, copy(complete));
    expectResponse(r, copy(complete), ["201 Created", "201 Created", "201 Created", "201 Created"]);
    const docRef = r.body.entry![2]!.response!.location!.split("/_history")[0]!;
    const folder = await read(t, r.body.entry![1]!.response!.location!.split("/_history")[0]!);
    expect(folder.entry).toEqual([{ item: { reference: docRef } }]);
    const folders = (await (await t.fetch(`/fhir/r4/${t.orgId}/List?code=folder&patient=Patient/ex-patient&status=current`)).json()) as Bundle;
    expect(folders.total).toBe(1);

    // Mutated: the contained recipient missing from the SubmissionSet; the Folder without its title.
    const noRecipient = copy(complete);
    noRecipient.entry[0]!.resource!.contained = (noRecipient.entry[0]!.resource!.contained as Resource[]).filter((c) => c.id !== "in-practitionerRecipient");
    expect(codes(await provide(t, noRecipient))).toEqual(["UnknownRecipient"]);
    const untitled = copy(complete);
    delete untitled.entry[1]!.resource!.title;
    expect(codes(await provide(t, untitled))).toEqual(["XDSRegistryMetadataError"]);
    expect(await count(t, "List")).toBe(2);
  });

  it("accepts ex-unContainedComprehensiveProvideDocumentBundleComplete, whose author and recipient are the directory's", async () => {
    const r = await provide(t, copy(unContained));
    expectResponse(r, copy(unContained), ["201 Created", "201 Created", "201 Created"]);
    const doc = await read(t, r.body.entry![1]!.response!.location!.split("/_history")[0]!);
    expect(doc.author).toEqual([{ reference: "Organization/ex-organization" }, { reference: "Practitioner/ex-practitioner" }]);

    // Mutated: the same Bundle declared Comprehensive (contained) is refused; so is a recipient the server does not know.
    const declaredContained = copy(unContained);
    declaredContained.meta!.profile = ["https://profiles.ihe.net/ITI/MHD/StructureDefinition/IHE.MHD.Comprehensive.ProvideBundle"];
    const refused = await provide(t, declaredContained);
    expect(codes(refused)).toEqual(["XDSRegistryMetadataError", "XDSRegistryMetadataError"]);
    const diagnostics = refused.body.issue!.map((i) => i.diagnostics);
    expect(diagnostics).toContainEqual(expect.stringContaining("The SubmissionSet references its source (author) outside its contained resources"));
    expect(diagnostics).toContainEqual(expect.stringContaining("A DocumentReference references author, authenticator, context.sourcePatientInfo outside its contained resources"));
    const stranger = copy(unContained);
    stranger.entry[0]!.resource!.extension = (stranger.entry[0]!.resource!.extension as { url: string }[]).map((e) =>
      e.url.endsWith("ihe-intendedRecipient") ? { ...e, valueReference: { reference: "Practitioner/nobody" } } : e,
    );
    expect(codes(await provide(t, stranger))).toEqual(["UnknownRecipient"]);
    expect(await count(t, "DocumentReference")).toBe(3);
  });

  it("another organization does not know the guide's patient", async () => {
    const other = await createTenant();
    await post(other, { resourceType: "Patient", name: [{ family: "Someone else" }] });
    const r = await provide(other, copy(simple));
    expect(r.status).toBe(400);
    expect(codes(r)).toEqual(["XDSUnknownPatientId"]);
    expect(await count(other, "DocumentReference")).toBe(0);
  });
});
