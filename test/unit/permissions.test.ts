import { describe, expect, it } from "vitest";
import { hasPermission, hasScope, isValidScope, type Principal } from "../../src/auth/permissions";

const p = (role: Principal["role"], scopes: string[] = []): Principal => ({ orgId: "o", keyId: "k", keyName: "n", role, scopes });

describe("permissions", () => {
  it("admin has everything, clinician cannot manage keys, service can ingest messages", () => {
    expect(hasPermission(p("admin"), "keys:manage")).toBe(true);
    expect(hasPermission(p("clinician"), "keys:manage")).toBe(false);
    expect(hasPermission(p("clinician"), "fhir:read")).toBe(true);
    expect(hasPermission(p("service"), "messages:ingest")).toBe(true);
    expect(hasPermission(p("clinician"), "messages:ingest")).toBe(false);
  });
  it("a scoped key has only its scopes, even with the admin role", () => {
    const scoped = p("admin", ["agent/a1:execute"]);
    expect(hasPermission(scoped, "fhir:read")).toBe(false);
    expect(hasScope(scoped, "agent/a1:execute")).toBe(true);
    expect(hasScope(scoped, "agent/a2:execute")).toBe(false);
  });
  it("validates scope syntax", () => {
    expect(isValidScope("agent/123e4567-e89b-12d3-a456-426614174000:execute")).toBe(true);
    expect(isValidScope("agent/*:execute")).toBe(false);
    expect(isValidScope("admin")).toBe(false);
  });
});
