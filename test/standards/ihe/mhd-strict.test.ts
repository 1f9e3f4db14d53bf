// MHD-scoped searches by organization (`mhd_strict`, /api/ihe/settings): once an organization
// declares its FHIR base an MHD Document Responder, every DocumentReference (ITI-67) and List
// (ITI-66) search without patient/patient.identifier or status is a 400 OperationOutcome; other
// organizations, and the org itself before or after, keep plain FHIR search.
import { describe, expect, it } from "vitest";
import type { Bundle } from "../../../src/features/fhir/port";
import { authedFetch, createKey, createTenant, type Tenant } from "../../support/tenants";
import { post } from "../../fhir/support";

const put = (t: { fetch: Tenant["fetch"] }, body: unknown) => t.fetch("/api/ihe/settings", { method: "PUT", body: JSON.stringify(body), headers: { "content-type": "application/json" } });
const status = async (t: Tenant, query: string) => (await t.fetch(`/fhir/r4/${t.orgId}/${query}`)).status;

async function seed(t: Tenant) {
  const patient = await post(t, { resourceType: "Patient", identifier: [{ system: "urn:oid:1.2.3", value: "S-1" }] });
  await post(t, { resourceType: "DocumentReference", status: "current", subject: { reference: `Patient/${patient.id}` }, content: [{ attachment: { url: "http://example.org/a.pdf" } }] });
  await post(t, { resourceType: "List", status: "current", mode: "working", subject: { reference: `Patient/${patient.id}` } });
  return patient.id!;
}

describe("mhd_strict: MHD-scoped ITI-67/ITI-66 searches per organization", () => {
  it("is off by default, set by an admin only, and validated", async () => {
    const t = await createTenant();
    const initial = await t.fetch("/api/ihe/settings");
    expect(initial.status).toBe(200);
    expect(await initial.json()).toEqual({ mhd_strict: false, mhd_superseded_gone: false, updated_at: null, updated_by: null });
    const { key } = await createKey(t.orgId, "service");
    expect((await put({ fetch: authedFetch(t.orgId, key) }, { mhd_strict: true })).status).toBe(403);
    expect((await put(t, { mhd_strict: "yes" })).status).toBe(400);
    expect((await put(t, { mhd_strict: true, other: 1 })).status).toBe(400);
    expect((await put(t, {})).status).toBe(400);
    const set = await put(t, { mhd_strict: true });
    expect(set.status).toBe(200);
    expect(await set.json()).toMatchObject({ mhd_strict: true, updated_by: t.keyId });
    expect(await (await t.fetch("/api/ihe/settings")).json()).toMatchObject({ mhd_strict: true });
  });

  it("refuses DocumentReference and List searches without patient or status once on, for that organization only", async () => {
    const t = await createTenant();
    const patient = await seed(t);
    const other = await createTenant();
    await seed(other);
    // Off: plain FHIR search.
    expect(await status(t, "DocumentReference?status=current")).toBe(200);
    expect(await status(t, "List?status=current")).toBe(200);

    expect((await put(t, { mhd_strict: true })).status).toBe(200);
    const refused = await t.fetch(`/fhir/r4/${t.orgId}/DocumentReference?status=current`);
    expect(refused.status).toBe(400);
    expect(await refused.json()).toEqual({
      resourceType: "OperationOutcome",
      issue: [{ severity: "error", code: "required", diagnostics: "ITI-67 Find Document References (mhd_strict) requires patient or patient.identifier" }],
    });
    expect(await status(t, `DocumentReference?patient=Patient/${patient}`)).toBe(400);
    expect(await status(t, "DocumentReference")).toBe(400);
    expect(await status(t, "List?status=current")).toBe(400);
    const posted = await t.fetch(`/fhir/r4/${t.orgId}/DocumentReference/_search`, { method: "POST", body: "status=current", headers: { "content-type": "application/x-www-form-urlencoded" } });
    expect(posted.status).toBe(400);
    // Complete ITI-67/66 queries answer.
    for (const q of [`DocumentReference?patient=Patient/${patient}&status=current`, "DocumentReference?patient.identifier=urn:oid:1.2.3|S-1&status=current,superseded", `List?patient=Patient/${patient}&status=current`]) {
      const res = await t.fetch(`/fhir/r4/${t.orgId}/${q}`);
      expect(res.status, q).toBe(200);
      expect(((await res.json()) as Bundle).total, q).toBe(1);
    }
    // Other types and other organizations are untouched.
    expect(await status(t, "Patient?identifier=urn:oid:1.2.3|S-1")).toBe(200);
    expect(await status(other, "DocumentReference?status=current")).toBe(200);
    expect(await status(other, "List?status=current")).toBe(200);

    expect((await put(t, { mhd_strict: false })).status).toBe(200);
    expect(await status(t, "DocumentReference?status=current")).toBe(200);
  });
});
