// The rule a new API key's scopes follow: each agent scope must name an agent of the key's organization.
import { describe, expect, it } from "vitest";
import { scopedAgentIds, checkScopedAgents } from "../../../src/features/tenancy/auth/key-scopes";
import { ApiError } from "../../../src/platform/errors";

describe("API key scopes", () => {
  it("names the agents the scopes point at, once each", () => {
    expect(scopedAgentIds(["agent/a1:execute", "agent/b2:execute", "agent/a1:execute"])).toEqual(["a1", "b2"]);
    expect(scopedAgentIds([])).toEqual([]);
  });

  it("accepts scopes whose agents all exist", () => {
    expect(() => checkScopedAgents(["agent/a1:execute"], new Set(["a1", "zz"]))).not.toThrow();
    expect(() => checkScopedAgents([], new Set())).not.toThrow();
  });

  it("refuses with 400 and one field error per scope naming an unknown agent", () => {
    let caught: unknown;
    try {
      checkScopedAgents(["agent/a1:execute", "agent/gone:execute", "agent/other:execute"], new Set(["a1"]));
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(ApiError);
    const err = caught as ApiError;
    expect(err.status).toBe(400);
    expect(err.code).toBe("VALIDATION_FAILED");
    expect(err.message).toBe("No agent gone, other in this organization");
    expect(err.details).toEqual([
      { path: "scopes.1", message: "No agent gone in this organization" },
      { path: "scopes.2", message: "No agent other in this organization" },
    ]);
  });
});
