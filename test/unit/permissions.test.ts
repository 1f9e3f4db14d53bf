import { describe, expect, it } from "vitest";
import { denial, hasPermission, hasScope, isValidScope, type Principal } from "../../src/features/tenancy/auth/permissions";

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
  it("a denial names what is missing: the scope for a scoped key, the permission for a role", () => {
    expect(denial(p("admin"), "fhir:read")).toBeUndefined();
    expect(denial(p("service", ["agent/a1:execute"]), "agents:invoke", "agent/a1:execute")).toBeUndefined();
    expect(denial(p("admin", ["agent/a1:execute"]), "fhir:read")).toBe("This API key is restricted to the scopes agent/a1:execute; none grants fhir:read, which this request needs");
    expect(denial(p("admin", ["agent/a1:execute"]), "agents:invoke", "agent/a2:execute")).toBe(
      "This API key is restricted to the scopes agent/a1:execute and lacks the scope agent/a2:execute this request needs",
    );
    expect(denial(p("clinician"), "keys:manage")).toBe("The clinician role lacks the permission keys:manage");
    expect(denial(p("clinician"), "messages:read", "agent/a2:execute")).toBe("The clinician role lacks the permission messages:read and the key has no scope agent/a2:execute");
  });
});
