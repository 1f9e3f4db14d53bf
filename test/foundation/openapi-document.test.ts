// The OpenAPI document is a contract: moving schemas between modules must not change it.
// The snapshot is the document as served; update it only for an intended API change.
import { describe, expect, it } from "vitest";
import { call } from "../support/tenants";

describe("OpenAPI document", () => {
  it("matches the recorded document", async () => {
    const res = await call("/api/openapi.json");
    expect(res.status).toBe(200);
    await expect(`${JSON.stringify(await res.json(), null, 2)}\n`).toMatchFileSnapshot("__snapshots__/openapi.json");
  });
});
