// Malformed-input fuzz: random methods, paths, headers and bodies never produce a 5xx,
// and every error carries the documented shape for its API.
import { describe, expect, it } from "vitest";
import { generateApiKey } from "../../src/features/tenancy/auth/api-key-crypto";
import { call, createTenant } from "../support/tenants";
import { seededRandom } from "../../scripts/lib/seeded-random";


const pick = <T>(r: () => number, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;

const BODIES = [
  "",
  "{",
  "null",
  "[]",
  '"str"',
  "123",
  '{"name":null,"role":[]}',
  '{"name":"x","role":"admin","scopes":"agent/1:execute"}',
  '{"name":"x","role":"admin","scopes":[1,2]}',
  '{"__proto__":{"admin":true},"name":"x","role":"admin"}',
  "\u0000\u0001\u0002",
  "x".repeat(5000),
  '{"name":"\\ud800","role":"service"}',
  "<xml/>",
];
const PATHS = [
  "/api/api-keys",
  "/api/api-keys/",
  "/api/api-keys/%00",
  "/api/api-keys/../../etc/passwd",
  "/api/api-keys/00000000-0000-0000-0000-000000000000",
  "/api/api-keys?limit=abc",
  "/api/api-keys?limit=1e9&offset=-5",
  "/api/api-keys?limit=",
  "/api/organization",
  "/api/organization?x=%zz",
  "/api/%E0%A4%A",
  "/api",
  "/fhir/r4/",
  "/fhir/r4/ORG/Patient",
  "/fhir/r4/ORG/Patient/%2e%2e",
  "/health?x=1",
];
const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "HEAD"];
const CONTENT_TYPES = ["application/json", "application/fhir+json", "text/plain", "", "application/json; charset=utf-16", "multipart/form-data"];

describe("malformed-input fuzz", () => {
  it("never answers 5xx across 400 random requests", async () => {
    const t = await createTenant();
    const r = seededRandom(20261122);
    const authHeaders = [`Bearer ${t.key}`, `Bearer ${generateApiKey()}`, "Bearer", "", `bearer ${t.key}`, "Basic x"];
    const orgHeaders = [t.orgId, "", "other-org", `${t.orgId} `, "x".repeat(300)];
    const failures: string[] = [];
    for (let i = 0; i < 400; i++) {
      const method = pick(r, METHODS);
      const path = pick(r, PATHS).replace("ORG", pick(r, [t.orgId, "someone-else"]));
      const headers = new Headers();
      const auth = pick(r, authHeaders);
      if (auth) headers.set("authorization", auth);
      const org = pick(r, orgHeaders);
      if (org) headers.set("x-organization-id", org);
      const type = pick(r, CONTENT_TYPES);
      if (type) headers.set("content-type", type);
      const body = method === "GET" || method === "HEAD" ? undefined : pick(r, BODIES);
      const res = await call(path, { method, headers, body });
      const text = await res.text();
      const label = `#${i} ${method} ${path} auth=${auth.slice(0, 12)} org=${org.slice(0, 12)} type=${type}`;
      if (res.status >= 500) failures.push(`${label} → ${res.status} ${text.slice(0, 200)}`);
      if (res.status >= 400 && method !== "HEAD") {
        const json = JSON.parse(text) as { error?: { code: string; status: number }; resourceType?: string };
        const shaped = path.startsWith("/fhir/") ? json.resourceType === "OperationOutcome" : json.error?.status === res.status;
        if (!shaped) failures.push(`${label} → unshaped ${text.slice(0, 200)}`);
      }
    }
    expect(failures).toEqual([]);
  });
});
