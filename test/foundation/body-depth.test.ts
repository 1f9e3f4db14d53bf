// Request bodies nested deeper than MAX_BODY_DEPTH (100 levels of objects and arrays): every
// route refuses them with a 400 naming the limit, in its own error shape (OperationOutcome under
// /fhir, {"error"} under /api), before anything recursive reads them. 3,000 levels used to
// overflow the stack (500). Bodies within the limit are untouched.
import { describe, expect, it } from "vitest";
import { MAX_BODY_DEPTH } from "../../src/platform/http/body-depth";
import { call, createTenant } from "../support/tenants";

/** A Patient (JSON text) whose extensions nest `levels` deep: each level is an object and an array (2 JSON levels). Built as text: stringifying it would overflow this test's stack too. */
function nestedPatient(levels: number): string {
  return `{"resourceType":"Patient","extension":[${'{"url":"urn:level","extension":['.repeat(levels)}{"url":"urn:leaf","valueString":"x"}${"]}".repeat(levels)}]}`;
}

function nestedXml(levels: number): string {
  return `<Patient xmlns="http://hl7.org/fhir">${'<extension url="urn:x">'.repeat(levels)}<valueString value="x"/>${"</extension>".repeat(levels)}</Patient>`;
}

const deepArray = (levels: number) => `${"[".repeat(levels)}${"]".repeat(levels)}`;
const limit = new RegExp(`deeper than ${MAX_BODY_DEPTH} levels`);

async function fhirRefusal(res: Response): Promise<string> {
  const body = (await res.json()) as { resourceType: string; issue: { diagnostics: string }[] };
  expect({ status: res.status, type: body.resourceType }).toEqual({ status: 400, type: "OperationOutcome" });
  return body.issue.map((i) => i.diagnostics).join("; ");
}

async function apiRefusal(res: Response): Promise<string> {
  const body = (await res.json()) as { error: { code: string; message: string; status: number } };
  expect({ status: res.status, code: body.error.code }).toEqual({ status: 400, code: "BAD_REQUEST" });
  return body.error.message;
}

describe("body depth", () => {
  it("a FHIR create 3,000 levels deep is a 400 OperationOutcome naming the limit; one within it is stored", async () => {
    const t = await createTenant();
    const fhir = (body: string, type = "application/fhir+json") => t.fetch(`/fhir/r4/${t.orgId}/Patient`, { method: "POST", body, headers: { "content-type": type } });
    expect(await fhirRefusal(await fhir(nestedPatient(3000)))).toMatch(limit);
    expect(await fhirRefusal(await fhir(nestedPatient(60)))).toMatch(limit);
    // 48 levels of extensions are 98 levels of JSON: accepted and stored whole.
    const ok = await fhir(nestedPatient(48));
    expect(ok.status, await ok.clone().text()).toBe(201);
    // Brackets inside strings are text, not nesting.
    const text = await fhir(JSON.stringify({ resourceType: "Patient", name: [{ text: `${"[{".repeat(500)}\\"${"]}".repeat(500)}` }] }));
    expect(text.status).toBe(201);
  });

  it("FHIR XML is bounded the same: by its elements, and by the objects they become", async () => {
    const t = await createTenant();
    const xml = (body: string) => t.fetch(`/fhir/r4/${t.orgId}/Patient`, { method: "POST", body, headers: { "content-type": "application/fhir+xml", accept: "application/fhir+json" } });
    expect(await fhirRefusal(await xml(nestedXml(3000)))).toMatch(limit);
    // 60 extension elements are 120 levels of JSON, refused as the same resource in JSON is.
    expect(await fhirRefusal(await xml(nestedXml(60)))).toMatch(limit);
    expect((await xml(nestedXml(40))).status).toBe(201);
  });

  it("a Bundle entry, a JSON Patch and an operation body whatever its Content-Type are bounded", async () => {
    const t = await createTenant();
    const base = `/fhir/r4/${t.orgId}`;
    const deepEntry = `{"resourceType":"Bundle","type":"transaction","entry":[{"resource":${nestedPatient(3000)},"request":{"method":"POST","url":"Patient"}}]}`;
    expect(await fhirRefusal(await t.fetch(base, { method: "POST", body: deepEntry, headers: { "content-type": "application/fhir+json" } }))).toMatch(limit);
    const p = (await (await t.fetch(`${base}/Patient`, { method: "POST", json: { resourceType: "Patient" } })).json()) as { id: string };
    const deepPatch = `[{"op":"add","path":"/extension","value":${deepArray(3000)}}]`;
    const patch = await t.fetch(`${base}/Patient/${p.id}`, { method: "PATCH", body: deepPatch, headers: { "content-type": "application/json-patch+json" } });
    expect(await fhirRefusal(patch)).toMatch(limit);
    // A JSON Patch inside a Binary of a transaction is opaque to the body's check: bounded when decoded.
    const binaryPatch = { resourceType: "Binary", contentType: "application/json-patch+json", data: btoa(deepPatch) };
    const inBundle = await t.fetch(base, { method: "POST", json: { resourceType: "Bundle", type: "transaction", entry: [{ resource: binaryPatch, request: { method: "PATCH", url: `Patient/${p.id}` } }] } });
    expect(await fhirRefusal(inBundle)).toMatch(limit);
    // An operation reads a JSON body whatever its Content-Type says.
    const summary = await t.fetch(`${base}/Patient/${p.id}/$summary`, { method: "POST", body: `{"resourceType":"Parameters","parameter":${deepArray(3000)}}`, headers: { "content-type": "text/plain" } });
    expect(await fhirRefusal(summary)).toMatch(limit);
  });

  it("a management body 5,000 levels deep is a 400 error naming the limit (copilot infer/schema); a shallow one is answered", async () => {
    const t = await createTenant();
    const infer = (body: string) => t.fetch("/api/copilot/infer/schema", { method: "POST", body, headers: { "content-type": "application/json" } });
    expect(await apiRefusal(await infer(`{"samples":[${deepArray(5000)}]}`))).toMatch(limit);
    expect((await infer(`{"samples":[${deepArray(20)}]}`)).status).toBe(200);
    expect(await apiRefusal(await t.fetch("/api/pipelines", { method: "POST", body: `{"name":"x","definition":${"{\"a\":".repeat(200)}1${"}".repeat(200)}}`, headers: { "content-type": "application/json" } }))).toMatch(limit);
  });

  it("public and operator routes are bounded too: the console sign-in and the operator API", async () => {
    const signIn = await call("/api/v1/console/session", { method: "POST", body: `{"organization_id":"x","api_key":${deepArray(5000)}}`, headers: { "content-type": "application/json" } });
    expect(await apiRefusal(signIn)).toMatch(limit);
    const t = await createTenant();
    const operator = await call(`/admin/organizations/${t.orgId}/limits`, { method: "POST", body: `{"limits":${deepArray(5000)}}`, headers: { "content-type": "application/json", authorization: "Bearer test-operator-token" } });
    expect(await apiRefusal(operator)).toMatch(limit);
  });
});
