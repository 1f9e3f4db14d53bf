// MHD round trip with a real FHIR client: fhir-kit-client (npm) as Document Source, Document
// Consumer and Patient Demographics Consumer against the Worker (its requests go to the
// Worker's fetch handler): PDQm ITI-78 finds the patient, ITI-65 provides a document, ITI-67
// finds it by patient.identifier and status, ITI-68 retrieves it from the absolute
// attachment.url (raw bytes by plain HTTP GET, as a Document Consumer does; the Binary resource
// by the client's read). Another organization's client finds nothing.
import { Client } from "fhir-kit-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Bundle, Resource } from "../../../src/features/fhir/port";
import { createTenant, type Tenant } from "../../support/tenants";
import { routeFetchToWorker } from "../../support/worker-fetch";
import { provideBundle, sha1 } from "./support/mhd-bundle";

let restoreFetch: () => void;
const clientFor = (t: Tenant) => new Client({ baseUrl: `http://localhost/fhir/r4/${t.orgId}`, customHeaders: { Authorization: `Bearer ${t.key}`, "X-Organization-ID": t.orgId } });

beforeAll(() => {
  // fhir-kit-client calls the global fetch; send its requests to the Worker under test.
  restoreFetch = routeFetchToWorker();
});

afterAll(() => restoreFetch());

type DocRef = Resource & { status: string; content: { attachment: { url: string; contentType: string; hash: string; size: number } }[] };

describe("MHD ITI-78 → ITI-65 → ITI-67 → ITI-68 with fhir-kit-client", () => {
  it("finds the patient, provides, finds and retrieves a document", async () => {
    const t = await createTenant();
    const client = clientFor(t);
    const mrn = { system: "urn:oid:1.2.3.4.5", value: `mrn-${crypto.randomUUID().slice(0, 8)}` };
    await client.create({ resourceType: "Patient", body: { resourceType: "Patient", identifier: [mrn], name: [{ family: "Roundtrip", given: ["Kit"] }], birthDate: "1970-05-06" } });

    // ITI-78: the Patient Demographics Consumer finds the patient by demographics.
    const found = (await client.search({ resourceType: "Patient", searchParams: { family: "Roundtrip", birthdate: "1970-05-06" } })) as Bundle;
    expect(found.total).toBe(1);
    const patient = found.entry![0]!.resource!;

    // ITI-65: a Comprehensive Provide Document Bundle as a FHIR transaction.
    const text = "%PDF-1.4 round trip";
    const bundle = await provideBundle(`Patient/${patient.id}`, { bytes: new TextEncoder().encode(text), contentType: "application/pdf" });
    const response = (await client.transaction({ body: bundle as never })) as Bundle;
    expect(response.type).toBe("transaction-response");
    expect(response.entry!.map((e) => e.response!.status.slice(0, 3))).toEqual(["201", "201", "201"]);

    // ITI-67: by patient.identifier and status (code only), as the Document Consumer SHALL send.
    const docs = (await client.search({ resourceType: "DocumentReference", searchParams: { "patient.identifier": `${mrn.system}|${mrn.value}`, status: "current" } })) as Bundle;
    expect(docs.total).toBe(1);
    const doc = docs.entry![0]!.resource as DocRef;
    const attachment = doc.content[0]!.attachment;
    expect(attachment.url).toMatch(/^http:\/\/localhost\/fhir\/r4\/[^/]+\/Binary\/[^/]+$/);
    // ITI-66: the SubmissionSet by patient and code.
    const lists = (await client.search({ resourceType: "List", searchParams: { patient: `Patient/${patient.id}`, code: "submissionset", status: "current" } })) as Bundle;
    expect(lists.total).toBe(1);

    // ITI-68: GET on attachment.url with the document's type: the original bytes.
    const raw = await fetch(attachment.url, { headers: { accept: attachment.contentType, authorization: `Bearer ${t.key}`, "x-organization-id": t.orgId } });
    expect(raw.status).toBe(200);
    expect(raw.headers.get("content-type")).toBe("application/pdf");
    const bytes = new Uint8Array(await raw.arrayBuffer());
    expect(new TextDecoder().decode(bytes)).toBe(text);
    expect(await sha1(bytes)).toBe(attachment.hash);
    // The client's own read of the same URL (FHIR JSON) is the Binary resource.
    const binary = (await client.request(attachment.url)) as Resource & { contentType: string; data: string };
    expect(binary).toMatchObject({ resourceType: "Binary", contentType: "application/pdf" });
    expect(atob(binary.data)).toBe(text);

    // Another organization's client finds none of it.
    const other = clientFor(await createTenant());
    const none = (await other.search({ resourceType: "DocumentReference", searchParams: { "patient.identifier": `${mrn.system}|${mrn.value}`, status: "current" } })) as Bundle;
    expect(none.total).toBe(0);
    const binaryId = attachment.url.split("/").pop()!;
    await expect(other.read({ resourceType: "Binary", id: binaryId })).rejects.toMatchObject({ response: { status: 404 } });
  });
});
