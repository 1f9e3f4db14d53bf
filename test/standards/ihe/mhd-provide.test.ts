// MHD ITI-65 Provide Document Bundle: Comprehensive and Minimal bundles accepted with the
// transaction-response in request order; each rule violated once and refused with its XDS code
// and nothing stored; Folders and intendedRecipient; the replacement flow; another organization's
// patient is unknown.
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
        resource: { resourceType: "List", identifier: [{ system: "urn:ietf:rfc:3986", value: `urn:oid:1.2.5.${n}` }], status: "current", mode: "working", title: "Referral", code: folderCode, subject: { reference: ref }, entry: [{ item: { reference: b.entry[1]!.fullUrl! } }], ...folder },
        request: { method: "POST", url: "List" },
      });
      return b;
    };
    const recipient = (b: MhdBundle, valueReference: unknown) => {
      setOf(b).extension = [{ url: "https://profiles.ihe.net/ITI/MHD/StructureDefinition/ihe-intendedRecipient", valueReference }];
      return b;
    };

    const cases: [string, (b: MhdBundle) => MhdBundle | Promise<MhdBundle>][] = [
      ["XDSPatientIdDoesNotMatch", (b) => withFolder(b, { subject: { reference: `Patient/${q.id}` } })],
      ["XDSRegistryMetadataError", (b) => withFolder(b, { entry: [{ item: { reference: b.entry[2]!.fullUrl! } }] })],
      ["XDSRegistryMetadataError", (b) => withFolder(b, { identifier: undefined })],
      ["XDSRegistryMetadataError", (b) => withFolder(b, { status: undefined })],
      ["XDSRegistryMetadataError", (b) => withFolder(b, { entry: [{ item: { reference: "DocumentReference/nothing-here" } }] })],
      ["UnknownRecipient", (b) => recipient(b, { reference: "Organization/nobody" })],
      ["UnknownRecipient", (b) => recipient(b, { reference: `Observation/${obs.id}` })],
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
    expect((set.entry![0]!.resource!.extension as { valueReference: unknown }[]).map((e) => e.valueReference)).toEqual([{ reference: `Organization/${org.id}` }, { identifier: { system: "urn:oid:1.2.3.4", value: "dr-x" } }]);
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

  it("replaces a document: the new one relatesTo the old, marked superseded in the same transaction", async () => {
    const t = await createTenant();
    const p = await post(t, { resourceType: "Patient", name: [{ family: "Mhd" }] });
    const first = await provide(t, await provideBundle(`Patient/${p.id}`));
    const oldId = first.body.entry![1]!.response!.location!.split("/")[1]!;
    const old = (await (await t.fetch(`/fhir/r4/${t.orgId}/DocumentReference/${oldId}`)).json()) as Resource;
    const b = await provideBundle(`Patient/${p.id}`);
    docOf(b).relatesTo = [{ code: "replaces", target: { reference: `DocumentReference/${oldId}` } }];
    b.entry.push({ resource: { ...old, status: "superseded" }, request: { method: "PUT", url: `DocumentReference/${oldId}` } });
    const r = await provide(t, b);
    expect(r.status).toBe(200);
    expect(r.body.entry!.length).toBe(4);
    expect(((await (await t.fetch(`/fhir/r4/${t.orgId}/DocumentReference/${oldId}`)).json()) as Resource).status).toBe("superseded");
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
