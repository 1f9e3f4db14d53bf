// Errors a store lets through from D1: a UNIQUE violation a racing request hits is a 409.
import { describe, expect, it } from "vitest";
import { toApiError } from "../../../src/platform/http/error-handler";

describe("toApiError", () => {
  it("answers a UNIQUE constraint failure, bare or wrapped by drizzle, as 409 CONFLICT", () => {
    const d1 = new Error("D1_ERROR: UNIQUE constraint failed: agent_versions.org_id, agent_versions.agent_id, agent_versions.version: SQLITE_CONSTRAINT");
    const wrapped = new Error("Failed query: insert into agent_versions …", { cause: d1 });
    for (const e of [d1, wrapped]) expect(toApiError(e)).toMatchObject({ status: 409, code: "CONFLICT" });
  });

  it("leaves other errors unknown (500)", () => {
    expect(toApiError(new Error("no such table: x"))).toBeUndefined();
  });
});
