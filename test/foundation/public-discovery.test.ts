// What a FHIR endpoint publishes without credentials (CapabilityStatement, SMART configuration)
// and nothing more: data still needs a key.
import { describe, expect, it } from "vitest";
import { corsOrigins } from "../../src/platform/http/cors";
import { call, createTenant } from "../support/tenants";

describe("public FHIR discovery", () => {
  it("serves the CapabilityStatement without credentials, for the org in the path", async () => {
    const t = await createTenant();
    const res = await call(`/fhir/r4/${t.orgId}/metadata`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("application/fhir+json");
    const cs = (await res.json()) as { resourceType: string; implementation: { url: string }; rest: { resource: unknown[] }[] };
    expect(cs.resourceType).toBe("CapabilityStatement");
    expect(cs.implementation.url).toMatch(new RegExp(`/fhir/r4/${t.orgId}$`));
    expect(cs.rest[0]!.resource.length).toBeGreaterThan(100);
    // Content negotiation still applies.
    expect((await call(`/fhir/r4/${t.orgId}/metadata?_format=ttl`)).status).toBe(406);
  });

  it("advertises the SMART authorization server in the SMART configuration and the CapabilityStatement", async () => {
    const res = await call(`/fhir/r4/any-org/.well-known/smart-configuration`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as Record<string, unknown> & { capabilities: string[]; authentication: { type: string } };
    expect(body.capabilities).toEqual(expect.arrayContaining(["launch-ehr", "launch-standalone", "client-public", "client-confidential-symmetric", "client-confidential-asymmetric", "context-ehr-patient", "context-standalone-patient", "permission-offline", "permission-online", "permission-patient", "permission-user", "permission-v1", "permission-v2", "sso-openid-connect"]));
    // Not claimed: what is not implemented.
    expect(body.capabilities).not.toContain("authorize-post");
    expect(body.capabilities).not.toContain("context-standalone-encounter");
    for (const [field, path] of [["authorization_endpoint", "auth/authorize"], ["token_endpoint", "auth/token"], ["introspection_endpoint", "auth/introspect"], ["revocation_endpoint", "auth/revoke"], ["jwks_uri", ".well-known/jwks.json"]] as const) {
      expect(body[field]).toBe(`http://localhost/fhir/r4/any-org/${path}`);
    }
    expect(body.grant_types_supported).toEqual(["authorization_code", "refresh_token", "client_credentials"]);
    expect(body.code_challenge_methods_supported).toEqual(["S256"]);
    expect(body.response_types_supported).toEqual(["code"]);
    expect(body.token_endpoint_auth_methods_supported).toEqual(["client_secret_basic", "client_secret_post", "private_key_jwt", "none"]);
    expect(body.token_endpoint_auth_signing_alg_values_supported).toEqual(["RS384", "ES384"]);
    expect(body.authentication.type).toBe("bearer");
    const cs = (await (await call(`/fhir/r4/any-org/metadata`)).json()) as { rest: { security: { extension: { url: string; extension: { url: string; valueUri: string }[] }[] } }[] };
    const oauth = cs.rest[0]!.security.extension.find((e) => e.url.endsWith("/oauth-uris"));
    expect(oauth?.extension).toEqual([
      { url: "authorize", valueUri: body.authorization_endpoint },
      { url: "token", valueUri: body.token_endpoint },
      { url: "introspect", valueUri: body.introspection_endpoint },
      { url: "revoke", valueUri: body.revocation_endpoint },
    ]);
  });

  it("still refuses data without a key, and another org's key", async () => {
    const [a, b] = [await createTenant(), await createTenant()];
    expect((await call(`/fhir/r4/${a.orgId}/Patient`)).status).toBe(401);
    expect((await call(`/fhir/r4/${a.orgId}/Patient`, { headers: { authorization: `Bearer ${b.key}`, "x-organization-id": a.orgId } })).status).toBe(403);
  });

  it("sends no CORS headers unless CORS_ORIGINS is set", async () => {
    const res = await call("/api/organization", { method: "OPTIONS", headers: { origin: "https://elsewhere.example", "access-control-request-method": "GET" } });
    expect(res.headers.get("access-control-allow-origin")).toBeNull();
  });
});

describe("CORS_ORIGINS", () => {
  it("reads origins, * and nothing, and refuses what is not an origin", () => {
    expect(corsOrigins(undefined)).toEqual([]);
    expect(corsOrigins("https://a.example.org, http://127.0.0.1:5173/path")).toEqual(["https://a.example.org", "http://127.0.0.1:5173"]);
    expect(corsOrigins("https://a.example.org *")).toBe("*");
    expect(() => corsOrigins("not an origin")).toThrow(/CORS_ORIGINS/);
  });
});
