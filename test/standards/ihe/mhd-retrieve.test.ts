// MHD ITI-68 Retrieve Document: a document provided with ITI-65 is found through an absolute
// attachment.url, which serves its original bytes and content type (Accept honoured, 406 when
// unsatisfiable, 404 unknown, 410 deleted); a large document comes back whole from R2; another
// organization's URL is 404; a superseded document is 410 only under the organization's
// mhd_superseded_gone policy.
import { describe, expect, it } from "vitest";
import type { Bundle, Resource } from "../../../src/features/fhir/port";
import { resourceFromXml } from "../../../src/features/fhir/xml";
import { createTenant, type Tenant } from "../../support/tenants";
import { post } from "../../fhir/support";
import { docOf, provide, provideBundle, sha1 } from "./support/mhd-bundle";

type DocRef = Resource & { content: { attachment: { url: string; contentType: string; size: number; hash: string } }[] };

/** Provides one document and returns its stored DocumentReference. */
async function provideDocument(t: Tenant, bytes: Uint8Array, contentType: string): Promise<DocRef> {
  const p = await post(t, { resourceType: "Patient", name: [{ family: "Retrieve" }] });
  const r = await provide(t, await provideBundle(`Patient/${p.id}`, { bytes, contentType }));
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  const location = r.body.entry![1]!.response!.location!.split("/_history")[0]!;
  return (await (await t.fetch(`/fhir/r4/${t.orgId}/${location}`)).json()) as DocRef;
}

/** GET an absolute URL of the service through the test app (the host is the app's own). */
const retrieve = (t: Tenant, url: string, accept?: string) => t.fetch(new URL(url).pathname, accept ? { headers: { accept } } : {});

// A real PNG (1×1, 67 bytes): bytes that are not text survive the round trip.
const PNG = Uint8Array.from(atob("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="), (c) => c.charCodeAt(0));

describe("MHD ITI-68 Retrieve Document", () => {
  it("stores an absolute attachment.url that serves the original bytes and content type", async () => {
    const t = await createTenant();
    const doc = await provideDocument(t, PNG, "image/png");
    const a = doc.content[0]!.attachment;
    expect(a.url).toMatch(new RegExp(`^https?://[^/]+/fhir/r4/${t.orgId}/Binary/[A-Za-z0-9\\-.]+$`));

    for (const accept of ["image/png", "image/*", "*/*", "text/html, */*;q=0.8"]) {
      const res = await retrieve(t, a.url, accept);
      expect(res.status, accept).toBe(200);
      expect(res.headers.get("content-type")).toBe("image/png");
      const bytes = new Uint8Array(await res.arrayBuffer());
      expect(bytes).toEqual(PNG);
      expect(await sha1(bytes)).toBe(a.hash);
      expect(bytes.length).toBe(a.size);
    }
    // The FHIR representation stays available to FHIR clients.
    const asFhir = await retrieve(t, a.url, "application/fhir+json");
    expect(asFhir.headers.get("content-type")).toMatch(/application\/fhir\+json/);
    expect(((await asFhir.json()) as Resource).resourceType).toBe("Binary");
  });

  it("answers 406 for an Accept it cannot satisfy, 404 unknown, 410 deleted", async () => {
    const t = await createTenant();
    const doc = await provideDocument(t, new TextEncoder().encode("<ClinicalDocument/>"), "text/xml");
    const url = doc.content[0]!.attachment.url;
    const xml = await retrieve(t, url, "text/xml");
    expect(xml.status).toBe(200);
    expect(await xml.text()).toBe("<ClinicalDocument/>");

    const refused = await retrieve(t, url, "application/pdf");
    expect(refused.status).toBe(406);
    expect(((await refused.json()) as Resource).resourceType).toBe("OperationOutcome");

    const unknown = await retrieve(t, `${url.slice(0, url.lastIndexOf("/"))}/no-such-document`, "text/xml");
    expect(unknown.status).toBe(404);
    // Accept text/xml is also FHIR XML's type, so the OperationOutcome comes in XML.
    expect(unknown.headers.get("content-type")).toMatch(/^text\/xml/);
    expect(resourceFromXml(await unknown.text()).resourceType).toBe("OperationOutcome");

    expect((await t.fetch(new URL(url).pathname, { method: "DELETE" })).status).toBe(204);
    expect((await retrieve(t, url, "text/xml")).status).toBe(410);
  });

  it("retrieves a large document whole (Binary content kept in R2)", async () => {
    const t = await createTenant();
    const big = new Uint8Array(3 * 1024 * 1024);
    for (let i = 0; i < big.length; i++) big[i] = (i * 31 + (i >> 9)) & 0xff;
    const doc = await provideDocument(t, big, "application/pdf");
    const res = await retrieve(t, doc.content[0]!.attachment.url, "application/pdf");
    expect(res.status).toBe(200);
    const bytes = new Uint8Array(await res.arrayBuffer());
    expect(bytes.length).toBe(big.length);
    expect(await sha1(bytes)).toBe(await sha1(big));
  });

  it("does not serve another organization's document", async () => {
    const a = await createTenant();
    const b = await createTenant();
    const doc = await provideDocument(a, PNG, "image/png");
    const path = new URL(doc.content[0]!.attachment.url).pathname;
    // b's key on a's URL: refused by tenancy; a's document id under b's base: unknown.
    const foreign = await b.fetch(path, { headers: { accept: "image/png", "x-organization-id": a.orgId } });
    expect([403, 404]).toContain(foreign.status);
    const underB = await b.fetch(path.replace(a.orgId, b.orgId), { headers: { accept: "image/png" } });
    expect(underB.status).toBe(404);
    const searched = (await (await b.fetch(`/fhir/r4/${b.orgId}/DocumentReference?_summary=count`)).json()) as Bundle;
    expect(searched.total).toBe(0);
  });

  it("answers 410 for a superseded document only when the organization's policy says so", async () => {
    const t = await createTenant();
    const p = await post(t, { resourceType: "Patient", name: [{ family: "Replaced" }] });
    const first = await provide(t, await provideBundle(`Patient/${p.id}`, { bytes: new TextEncoder().encode("version 1"), contentType: "text/plain" }));
    const oldId = first.body.entry![1]!.response!.location!.split("/")[1]!;
    const old = (await (await t.fetch(`/fhir/r4/${t.orgId}/DocumentReference/${oldId}`)).json()) as DocRef;
    const replacement = await provideBundle(`Patient/${p.id}`, { bytes: new TextEncoder().encode("version 2"), contentType: "text/plain" });
    docOf(replacement).relatesTo = [{ code: "replaces", target: { reference: `DocumentReference/${oldId}` } }];
    replacement.entry.push({ resource: { ...old, status: "superseded" }, request: { method: "PUT", url: `DocumentReference/${oldId}` } });
    const replaced = await provide(t, replacement);
    expect(replaced.status).toBe(200);
    const newId = replaced.body.entry![1]!.response!.location!.split("/")[1]!;
    const current = (await (await t.fetch(`/fhir/r4/${t.orgId}/DocumentReference/${newId}`)).json()) as DocRef;
    const oldUrl = old.content[0]!.attachment.url;

    // Default (policy off): the superseded document is still served.
    expect(await (await t.fetch("/api/ihe/settings")).json()).toMatchObject({ mhd_superseded_gone: false });
    const served = await retrieve(t, oldUrl, "text/plain");
    expect(served.status).toBe(200);
    expect(await served.text()).toBe("version 1");

    // Policy on: 410 with an OperationOutcome; the current document is served; other settings keep their values.
    const set = await t.fetch("/api/ihe/settings", { method: "PUT", json: { mhd_superseded_gone: true } });
    expect(await set.json()).toMatchObject({ mhd_superseded_gone: true, mhd_strict: false });
    const refused = await retrieve(t, oldUrl, "text/plain");
    expect(refused.status).toBe(410);
    const outcome = (await refused.json()) as { resourceType: string; issue: { diagnostics?: string }[] };
    expect(outcome.resourceType).toBe("OperationOutcome");
    expect(outcome.issue[0]!.diagnostics).toContain("superseded");
    expect((await retrieve(t, oldUrl, "*/*")).status).toBe(410);
    expect(await (await retrieve(t, current.content[0]!.attachment.url, "text/plain")).text()).toBe("version 2");
    // The FHIR read of the Binary resource (not ITI-68) and the DocumentReference itself stay readable.
    expect((await retrieve(t, oldUrl, "application/fhir+json")).status).toBe(200);
    expect((await t.fetch(`/fhir/r4/${t.orgId}/DocumentReference/${oldId}`)).status).toBe(200);

    // Another organization's policy is its own: b, policy off, serves its superseded document.
    const b = await createTenant();
    const pb = await post(b, { resourceType: "Patient", name: [{ family: "B" }] });
    const bFirst = await provide(b, await provideBundle(`Patient/${pb.id}`, { bytes: new TextEncoder().encode("b1"), contentType: "text/plain" }));
    const bOldId = bFirst.body.entry![1]!.response!.location!.split("/")[1]!;
    const bOld = (await (await b.fetch(`/fhir/r4/${b.orgId}/DocumentReference/${bOldId}`)).json()) as DocRef;
    expect((await b.fetch(`/fhir/r4/${b.orgId}/DocumentReference/${bOldId}`, { method: "PUT", json: { ...bOld, status: "superseded" } })).status).toBe(200);
    expect((await retrieve(b, bOld.content[0]!.attachment.url, "text/plain")).status).toBe(200);

    // Policy off again: served again.
    await t.fetch("/api/ihe/settings", { method: "PUT", json: { mhd_superseded_gone: false } });
    expect((await retrieve(t, oldUrl, "text/plain")).status).toBe(200);
  });
});
