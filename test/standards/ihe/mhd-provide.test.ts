// MHD ITI-65 Provide Document Bundle: Comprehensive, UnContained and Minimal bundles accepted
// with the transaction-response in request order; each rule (and each element an option's
// profiles require) violated once and refused with its XDS code and nothing stored; Folders and
// intendedRecipient; replacement by the guide's PATCH and by PUT; another organization's patient
// is unknown.
import { describe, expect, it } from "vitest";
import type { Bundle, BundleEntry, Resource } from "../../../src/features/fhir/port";
import { docOf, expectProvided, provide, provideBundle, setOf } from "./support/mhd-bundle";
import { createTenant, type Tenant } from "../../support/tenants";
import { post } from "../../fhir/support";

const count = async (t: Tenant, type: string) => ((await (await t.fetch(`/fhir/r4/${t.orgId}/${type}?_summary=count`)).json()) as Bundle).total;

type MhdBundle = Awaited<ReturnType<typeof provideBundle>>;

describe("MHD ITI-65 Provide Document Bundle", () => {
  it("accepts Comprehensive and Minimal bundles, answering in request order", async () => {
    const t = await createTenant();
    const p = await post(t, { resourceType: "Patient", name: [{ family: "Mhd" }] });
    const ok = await provide(t, await provideBundle(`Patient/${p.id}`));
    expectProvided(ok);
    const minimal = await provideBundle(`Patient/${p.id}`, { option: "Minimal" });
    const doc = docOf(minimal) as Record<string, unknown>;
    for (const k of ["type", "category", "date", "securityLabel", "context"]) delete doc[k];
    expect((await provide(t, minimal)).status).toBe(200);
    expect(await count(t, "DocumentReference")).toBe(2);
  });

  it("refuses each broken rule with its XDS code and stores nothing", async () => {
    const t = await createTenant();
    const p = await post(t, { resourceType: "Patient", name: [{ family: "Mhd" }] });
    const ref = `Patient/${p.id}`;
    const cases: [string, MhdCase][] = [
      ["XDSRegistryMetadataError", (b) => b.entry.push(structuredClone({ ...b.entry[0]!, fullUrl: "urn:uuid:ss-2" }))],
      ["XDSRegistryMetadataError", (b) => b.entry.splice(1, 1)],
      ["XDSMissingDocument", (b) => b.entry.splice(2, 1)],
      [
        "XDSNonIdenticalSize",
        (b) => {
          docOf(b).content[0]!.attachment.size = 3;
        },
      ],
      [
        "XDSNonIdenticalHash",
        (b) => {
          docOf(b).content[0]!.attachment.hash = btoa("not the hash at all!");
        },
      ],
      [
        "XDSUnknownPatientId",
        (b) => {
          docOf(b).subject = { reference: "Patient/nobody" };
          setOf(b).subject = { reference: "Patient/nobody" };
        },
      ],
      [
        "XDSPatientIdDoesNotMatch",
        (b) => {
          setOf(b).subject = { reference: "Patient/someone-else" };
        },
      ],
      ["XDSRegistryMetadataError", (b) => delete docOf(b).type],
      [
        "XDSRegistryMetadataError",
        (b) => {
          docOf(b).relatesTo = [{ code: "replaces", target: { reference: "DocumentReference/old" } }];
        },
      ],
      [
        "XDSRegistryMetadataError",
        (b) => {
          b.type = "batch";
        },
      ],
    ];
    for (const [code, breakIt] of cases) {
      const b = await provideBundle(ref);
      breakIt(b);
      const r = await provide(t, b);
      expect(r.status, code).toBe(400);
      expect(r.body.resourceType).toBe("OperationOutcome");
      expect(r.body.issue!.map((i) => i.details.coding[0]!.code), code).toContain(code);
    }
    expect(await count(t, "DocumentReference")).toBe(0);
    expect(await count(t, "List")).toBe(0);
  });

  it("refuses, per option, each element its profiles require (one case per rule) and stores nothing", async () => {
    const t = await createTenant();
    const p = await post(t, { resourceType: "Patient", name: [{ family: "Mhd" }] });
    const org = await post(t, { resourceType: "Organization", name: "Authoring clinic" });
    const author = await post(t, { resourceType: "Practitioner", name: [{ family: "Author" }] });
    const ref = `Patient/${p.id}`;
    type Option = "Comprehensive" | "Minimal" | "UnContained.Comprehensive";
    const attachment = (b: MhdBundle) => docOf(b).content[0]!.attachment as Record<string, unknown>;
    const extensionsOf = (b: MhdBundle) => setOf(b).extension as { url: string }[];
    const without = (b: MhdBundle, name: string) => {
      setOf(b).extension = extensionsOf(b).filter((e) => !e.url.endsWith(name));
    };
    const cases: [string, Option, MhdCase][] = [
      // Every option (IHE.MHD.Minimal.DocumentReference / SubmissionSet).
      ["Minimal: DocumentReference masterIdentifier", "Minimal", (b) => delete docOf(b).masterIdentifier],
      ["Minimal: attachment.url", "Minimal", (b) => delete attachment(b).url],
      ["Minimal: attachment.contentType", "Minimal", (b) => delete attachment(b).contentType],
      ["Minimal: status current or superseded", "Minimal", (b) => (docOf(b).status = "entered-in-error")],
      ["Minimal: one content", "Minimal", (b) => docOf(b).content.push(structuredClone(docOf(b).content[0]!))],
      ["Minimal: no attachment.data", "Minimal", (b) => (attachment(b).data = "SGVsbG8=")],
      ["Minimal: SubmissionSet sourceId", "Minimal", (b) => without(b, "ihe-sourceId")],
      ["Minimal: SubmissionSet date", "Minimal", (b) => delete setOf(b).date],
      ["Comprehensive: SubmissionSet sourceId", "Comprehensive", (b) => without(b, "ihe-sourceId")],
      ["UnContained: SubmissionSet sourceId", "UnContained.Comprehensive", (b) => without(b, "ihe-sourceId")],
      // IHE.MHD.UnContained.Comprehensive.DocumentReference / SubmissionSet (Comprehensive inherits them).
      ["Comprehensive: attachment.language", "Comprehensive", (b) => delete attachment(b).language],
      ["Comprehensive: attachment.creation", "Comprehensive", (b) => delete attachment(b).creation],
      ["UnContained: context.sourcePatientInfo", "UnContained.Comprehensive", (b) => delete (docOf(b).context as Record<string, unknown>).sourcePatientInfo],
      ["Comprehensive: subject", "Comprehensive", (b) => delete docOf(b).subject],
      ["Comprehensive: securityLabel", "Comprehensive", (b) => (docOf(b).securityLabel = [])],
      ["Comprehensive: one category", "Comprehensive", (b) => (docOf(b).category = [...(docOf(b).category as unknown[]), { text: "second" }])],
      ["Comprehensive: SubmissionSet designationType", "Comprehensive", (b) => without(b, "ihe-designationType")],
      ["UnContained: SubmissionSet subject", "UnContained.Comprehensive", (b) => delete setOf(b).subject],
      ["Comprehensive: SubmissionSet identifier", "Comprehensive", (b) => delete setOf(b).identifier],
      // IHE.MHD.Comprehensive (contained): author, authenticator, sourcePatientInfo and the SubmissionSet's source.
      ["Comprehensive: contained sourcePatientInfo", "Comprehensive", (b) => ((docOf(b).context as Record<string, unknown>).sourcePatientInfo = { reference: ref })],
      ["Comprehensive: contained author", "Comprehensive", (b) => (docOf(b).author = [{ reference: `Organization/${org.id}` }])],
      ["Comprehensive: contained authenticator", "Comprehensive", (b) => (docOf(b).authenticator = { reference: `Organization/${org.id}` })],
      ["Comprehensive: contained SubmissionSet source", "Comprehensive", (b) => (setOf(b).source = { reference: `Practitioner/${author.id}` })],
      ["Comprehensive: sourcePatientInfo is a Patient", "Comprehensive", (b) => (docOf(b).contained = [{ resourceType: "Organization", id: "source-patient", name: "x" }])],
    ];
    for (const [rule, option, breakIt] of cases) {
      const b = await provideBundle(ref, { option });
      breakIt(b);
      const r = await provide(t, b);
      expect(r.status, rule).toBe(400);
      expect(r.body.issue!.map((i) => i.details.coding[0]!.code), rule).toEqual(["XDSRegistryMetadataError"]);
    }
    expect(await count(t, "DocumentReference")).toBe(0);
    expect(await count(t, "List")).toBe(0);

    // UnContained keeps author, sourcePatientInfo and source where the community's directories hold them.
    const loose = await provideBundle(ref, { option: "UnContained.Comprehensive" });
    docOf(loose).author = [{ reference: `Organization/${org.id}` }];
    (docOf(loose).context as Record<string, unknown>).sourcePatientInfo = { reference: ref };
    setOf(loose).source = { reference: `Practitioner/${author.id}` };
    expectProvided(await provide(t, loose));
    // Contained under Comprehensive.
    const kept = await provideBundle(ref);
    docOf(kept).contained = [...(docOf(kept).contained as unknown[]), { resourceType: "Practitioner", id: "author", name: [{ family: "Author" }] }];
    docOf(kept).author = [{ reference: "#author" }];
    expectProvided(await provide(t, kept));
  });

  it("refuses a subject that is a non-Patient entry of the Bundle", async () => {
    const t = await createTenant();
    const b = await provideBundle("urn:uuid:not-a-patient");
    b.entry.push({ fullUrl: "urn:uuid:not-a-patient", resource: { resourceType: "Organization", name: "Not a patient" }, request: { method: "POST", url: "Organization" } });
    const r = await provide(t, b);
    expect(r.status).toBe(400);
    expect(r.body.issue!.map((i) => [i.details.coding[0]!.code, i.diagnostics])).toContainEqual(["XDSUnknownPatientId", "urn:uuid:not-a-patient is a Organization, not a Patient"]);
    expect(await count(t, "Organization")).toBe(0);
    // The same Bundle with a Patient there is accepted (a push to a recipient without a shared patient directory).
    const ok = await provideBundle("urn:uuid:a-patient");
    ok.entry.push({ fullUrl: "urn:uuid:a-patient", resource: { resourceType: "Patient", name: [{ family: "Pushed" }] }, request: { method: "POST", url: "Patient" } });
    expect((await provide(t, ok)).status).toBe(200);
  });

  it("stores Folders and intendedRecipients, searchable; refuses each Folder and recipient rule with its code", async () => {
    const t = await createTenant();
    const p = await post(t, { resourceType: "Patient", name: [{ family: "Folded" }] });
    const q = await post(t, { resourceType: "Patient", name: [{ family: "Other" }] });
    const org = await post(t, { resourceType: "Organization", name: "Receiving clinic" });
    const obs = await post(t, { resourceType: "Observation", status: "final", code: { text: "x" } });
    const elsewhere = await createTenant();
    const theirOrg = await post(elsewhere, { resourceType: "Organization", name: "Not ours" });
    const ref = `Patient/${p.id}`;
    const folderCode = { coding: [{ system: "https://profiles.ihe.net/ITI/MHD/CodeSystem/MHDlistTypes", code: "folder" }] };
    const withFolder = (b: MhdBundle, folder: Record<string, unknown> = {}) => {
      const n = crypto.randomUUID();
      b.entry.push({
        fullUrl: `urn:uuid:folder-${n}`,
        resource: {
          resourceType: "List",
          extension: [{ url: "https://profiles.ihe.net/ITI/MHD/StructureDefinition/ihe-designationType", valueCodeableConcept: { coding: [{ system: "http://snomed.info/sct", code: "225728007" }] } }],
          identifier: [{ system: "urn:ietf:rfc:3986", value: `urn:oid:1.2.5.${n}` }],
          status: "current",
          mode: "working",
          title: "Referral",
          code: folderCode,
          subject: { reference: ref },
          entry: [{ item: { reference: b.entry[1]!.fullUrl! } }],
          ...folder,
        },
        request: { method: "POST", url: "List" },
      });
      return b;
    };
    const recipient = (b: MhdBundle, valueReference: unknown) => {
      (setOf(b).extension as unknown[]).push({ url: "https://profiles.ihe.net/ITI/MHD/StructureDefinition/ihe-intendedRecipient", valueReference });
      return b;
    };

    const cases: [string, (b: MhdBundle) => MhdBundle | Promise<MhdBundle>][] = [
      ["XDSPatientIdDoesNotMatch", (b) => withFolder(b, { subject: { reference: `Patient/${q.id}` } })],
      ["XDSRegistryMetadataError", (b) => withFolder(b, { entry: [{ item: { reference: b.entry[2]!.fullUrl! } }] })],
      ["XDSRegistryMetadataError", (b) => withFolder(b, { identifier: undefined })],
      ["XDSRegistryMetadataError", (b) => withFolder(b, { status: undefined })],
      ["XDSRegistryMetadataError", (b) => withFolder(b, { title: undefined })], // Comprehensive Folder: title 1..1
      ["XDSRegistryMetadataError", (b) => withFolder(b, { extension: undefined })], // ... designationType 1..*
      ["XDSRegistryMetadataError", (b) => withFolder(b, { entry: [{ item: { reference: "DocumentReference/nothing-here" } }] })],
      ["UnknownRecipient", (b) => recipient(b, { reference: "Organization/nobody" })],
      ["UnknownRecipient", (b) => recipient(b, { reference: `Observation/${obs.id}` })],
      ["UnknownRecipient", (b) => recipient(b, { reference: "#not-contained" })],
      ["UnknownRecipient", (b) => recipient(b, { reference: `Organization/${theirOrg.id}` })],
      ["XDSRegistryMetadataError", (b) => recipient(b, {})],
    ];
    for (const [code, breakIt] of cases) {
      const r = await provide(t, await breakIt(await provideBundle(ref)));
      expect(r.status, code).toBe(400);
      expect(r.body.issue!.map((i) => i.details.coding[0]!.code), code).toContain(code);
    }
    expect(await count(t, "List")).toBe(0);
    expect(await count(t, "DocumentReference")).toBe(0);

    // Accepted: a Folder of the Bundle's document, recipients by reference (stored, or in the Bundle) and by identifier.
    const b = withFolder(recipient(await provideBundle(ref), { reference: `Organization/${org.id}` }));
    (setOf(b).extension as unknown[]).push({ url: "https://profiles.ihe.net/ITI/MHD/StructureDefinition/ihe-intendedRecipient", valueReference: { identifier: { system: "urn:oid:1.2.3.4", value: "dr-x" } } });
    const ok = await provide(t, b);
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    const docId = ok.body.entry![1]!.response!.location!.split("/")[1]!;
    const folders = (await (await t.fetch(`/fhir/r4/${t.orgId}/List?code=folder&patient=${ref}&status=current`)).json()) as Bundle;
    expect(folders.total).toBe(1);
    const folder = folders.entry![0]!.resource as Resource & { entry: { item: { reference: string } }[] };
    expect(folder.entry[0]!.item.reference).toBe(`DocumentReference/${docId}`);
    const set = (await (await t.fetch(`/fhir/r4/${t.orgId}/List?code=submissionset&patient=${ref}&status=current`)).json()) as Bundle;
    const recipients = (set.entry![0]!.resource!.extension as { url: string; valueReference: unknown }[]).filter((e) => e.url.endsWith("ihe-intendedRecipient"));
    expect(recipients.map((e) => e.valueReference)).toEqual([{ reference: `Organization/${org.id}` }, { identifier: { system: "urn:oid:1.2.3.4", value: "dr-x" } }]);
    // A second Folder may list the stored document of the same patient.
    const again = withFolder(await provideBundle(ref), {});
    (again.entry[3]!.resource as unknown as { entry: unknown[] }).entry.push({ item: { reference: `DocumentReference/${docId}` } });
    expect((await provide(t, again)).status).toBe(200);
    // ...but not another patient's stored document.
    const qDoc = await provide(t, await provideBundle(`Patient/${q.id}`));
    const qDocId = qDoc.body.entry![1]!.response!.location!.split("/")[1]!;
    const wrong = await provide(t, withFolder(await provideBundle(ref), { entry: [{ item: { reference: `DocumentReference/${qDocId}` } }] }));
    expect(wrong.body.issue!.map((i) => i.details.coding[0]!.code)).toContain("XDSPatientIdDoesNotMatch");
    expect(await count(t, "List")).toBe(5); // two SubmissionSets and Folders accepted, and q's SubmissionSet
  });

  it("replaces a document by the guide's PATCH (IHE.MHD.Patch.Parameters) or by PUT, marked superseded in the same transaction", async () => {
    const t = await createTenant();
    const p = await post(t, { resourceType: "Patient", name: [{ family: "Mhd" }] });
    const stored = async () => (await provide(t, await provideBundle(`Patient/${p.id}`))).body.entry![1]!.response!.location!.split("/")[1]!;
    const read = async (id: string) => (await (await t.fetch(`/fhir/r4/${t.orgId}/DocumentReference/${id}`)).json()) as Resource;
    const supersede = (value = "superseded") => ({
      resourceType: "Parameters",
      parameter: [{ name: "operation", part: [{ name: "type", valueCode: "replace" }, { name: "path", valueString: "DocumentReference.status" }, { name: "value", valueCode: value }] }],
    });
    const replacing = async (oldId: string, entry: BundleEntry) => {
      const b = await provideBundle(`Patient/${p.id}`);
      docOf(b).relatesTo = [{ code: "replaces", target: { reference: `DocumentReference/${oldId}` } }];
      b.entry.splice(1, 0, entry); // where the guide's example puts it: after the SubmissionSet
      return b;
    };

    // The guide's UpdateDocumentRefs slice.
    const first = await stored();
    const original = await read(first);
    const byPatch = await provide(t, await replacing(first, { fullUrl: "urn:uuid:patch-1", resource: supersede() as Resource, request: { method: "PATCH", url: `DocumentReference/${first}` } }));
    expect(byPatch.status, JSON.stringify(byPatch.body)).toBe(200);
    expect(byPatch.body.entry!.map((e) => e.response!.status.slice(0, 3))).toEqual(["201", "200", "201", "201"]);
    expect(byPatch.body.entry![1]!.response!.location).toMatch(new RegExp(`^DocumentReference/${first}/_history/2$`));
    const { meta: _m, status, ...rest } = await read(first);
    const { meta: _o, status: _s, ...unchanged } = original;
    expect(status).toBe("superseded");
    expect(rest).toEqual(unchanged); // only the status changed

    // A PUT of the whole resource still works.
    const second = await stored();
    const byPut = await provide(t, await replacing(second, { resource: { ...(await read(second)), status: "superseded" }, request: { method: "PUT", url: `DocumentReference/${second}` } }));
    expect(byPut.status).toBe(200);
    expect((await read(second)).status).toBe("superseded");

    // A PATCH that is not the guide's (another value, another path) or none at all is refused, nothing stored.
    const third = await stored();
    const before = await count(t, "DocumentReference");
    const wrongValue = await provide(t, await replacing(third, { resource: supersede("current") as Resource, request: { method: "PATCH", url: `DocumentReference/${third}` } }));
    expect(wrongValue.status).toBe(400);
    expect(wrongValue.body.issue!.map((i) => i.details.coding[0]!.code)).toEqual(["XDSRegistryMetadataError", "XDSRegistryMetadataError"]);
    const unmarked = await provideBundle(`Patient/${p.id}`);
    docOf(unmarked).relatesTo = [{ code: "replaces", target: { reference: `DocumentReference/${third}` } }];
    expect((await provide(t, unmarked)).status).toBe(400);
    expect(await count(t, "DocumentReference")).toBe(before);
    expect((await read(third)).status).toBe("current");
  });

  it("does not know another organization's patient", async () => {
    const a = await createTenant();
    const b = await createTenant();
    const p = await post(a, { resourceType: "Patient", name: [{ family: "A" }] });
    const r = await provide(b, await provideBundle(`Patient/${p.id}`));
    expect(r.status).toBe(400);
    expect(r.body.issue!.map((i) => i.details.coding[0]!.code)).toContain("XDSUnknownPatientId");
    expect(await count(b, "DocumentReference")).toBe(0);
  });
});

type MhdCase = (b: Bundle & { entry: BundleEntry[] }) => unknown;
