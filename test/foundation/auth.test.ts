// The authentication and authorization matrix (spec section 5).
import { describe, expect, it } from "vitest";
import { generateApiKey } from "../../src/features/tenancy/auth/api-key-crypto";
import { authedFetch, call, createKey, createTenant } from "../support/tenants";

async function errorOf(res: Response) {
  return ((await res.json()) as { error: { code: string; status: number; message: string } }).error;
}

describe("authentication", () => {
  it("GET /health needs no credentials", async () => {
    expect((await call("/health")).status).toBe(200);
  });

  it("rejects a request without Authorization with 401", async () => {
    const t = await createTenant();
    const res = await call("/api/organization", { headers: { "x-organization-id": t.orgId } });
    expect(res.status).toBe(401);
    expect(await errorOf(res)).toMatchObject({ code: "UNAUTHORIZED", status: 401 });
  });

  it.each([
    ["Basic dXNlcjpwYXNz"],
    ["Bearer"],
    ["Bearer  "],
    ["Bearer a b"],
    ["Token cdis_x"],
    ["Bearer not-a-key"],
  ])("rejects the malformed header %j with 401", async (authorization) => {
    const t = await createTenant();
    const res = await call("/api/organization", { headers: { authorization, "x-organization-id": t.orgId } });
    expect(res.status).toBe(401);
    expect((await errorOf(res)).code).toBe("UNAUTHORIZED");
  });

  it("rejects a well-formed but unknown key with 401", async () => {
    const t = await createTenant();
    const res = await authedFetch(t.orgId, generateApiKey())("/api/organization");
    expect(res.status).toBe(401);
  });

  it("rejects a revoked key with 401 at once", async () => {
    const t = await createTenant();
    const victim = await createKey(t.orgId, "clinician");
    const asVictim = authedFetch(t.orgId, victim.key);
    expect((await asVictim("/api/organization")).status).toBe(200);
    expect((await t.fetch(`/api/api-keys/${victim.keyId}`, { method: "DELETE" })).status).toBe(200);
    const res = await asVictim("/api/organization");
    expect(res.status).toBe(401);
    expect((await errorOf(res)).message).toMatch(/revoked/);
  });

  it("requires X-Organization-ID (400)", async () => {
    const t = await createTenant();
    const res = await call("/api/organization", { headers: { authorization: `Bearer ${t.key}` } });
    expect(res.status).toBe(400);
    expect((await errorOf(res)).code).toBe("ORGANIZATION_REQUIRED");
  });

  it("refuses a key used for another organization with 403", async () => {
    const a = await createTenant();
    const b = await createTenant();
    const res = await authedFetch(b.orgId, a.key)("/api/organization");
    expect(res.status).toBe(403);
    expect((await errorOf(res)).code).toBe("FORBIDDEN");
  });

  it("refuses a FHIR path naming another organization with a 403 OperationOutcome", async () => {
    const a = await createTenant();
    const b = await createTenant();
    const res = await a.fetch(`/fhir/r4/${b.orgId}/Patient`);
    expect(res.status).toBe(403);
    expect(res.headers.get("content-type")).toContain("application/fhir+json");
    const body = (await res.json()) as { resourceType: string; issue: { code: string }[] };
    expect(body.resourceType).toBe("OperationOutcome");
    expect(body.issue[0]?.code).toBe("forbidden");
  });
});

describe("authorization", () => {
  it("a clinician cannot manage API keys (403)", async () => {
    const t = await createTenant({ role: "clinician" });
    const res = await t.fetch("/api/api-keys");
    expect(res.status).toBe(403);
    expect((await errorOf(res)).message).toMatch(/clinician role lacks/);
  });

  it("a service key reads the organization but cannot manage keys", async () => {
    const t = await createTenant({ role: "service" });
    expect((await t.fetch("/api/organization")).status).toBe(200);
    expect((await t.fetch("/api/api-keys")).status).toBe(403);
  });

  it("a scoped key is restricted to its scopes, whatever its role", async () => {
    const t = await createTenant({ role: "admin", scopes: ["agent/abc:execute"] });
    const res = await t.fetch("/api/organization");
    expect(res.status).toBe(403);
    expect((await errorOf(res)).message).toMatch(/restricted to the scopes agent\/abc:execute/);
  });

  it("a scoped key's 403 names the scope it lacks, never its role", async () => {
    const t = await createTenant({ role: "admin", scopes: ["agent/abc:execute"] });
    const fhir = await t.fetch(`/fhir/r4/${t.orgId}/Patient`);
    expect(fhir.status).toBe(403);
    const diagnostics = ((await fhir.json()) as { issue: { diagnostics: string }[] }).issue[0]!.diagnostics;
    expect(diagnostics).toMatch(/restricted to the scopes agent\/abc:execute; none grants fhir:read/);
    expect(diagnostics).not.toMatch(/role/);
    const org = await errorOf(await t.fetch("/api/organization"));
    expect(org.message).toMatch(/none grants org:read/);
    const invoke = await t.fetch("/api/v1/agents/other/invoke", { method: "POST", json: { input_data: {} } });
    expect(invoke.status).toBe(403);
    const message = (await errorOf(invoke)).message;
    expect(message).toMatch(/lacks the scope agent\/other:execute/);
    expect(message).not.toMatch(/role|permission/);
  });
});
