import { describe, expect, it } from "vitest";
import { call, createTenant } from "./support/tenants";

describe("smoke", () => {
  it("health answers without auth", async () => {
    const res = await call("/health");
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ status: "ok" });
  });
  it("authenticated org read", async () => {
    const t = await createTenant();
    const res = await t.fetch("/api/organization");
    expect(res.status).toBe(200);
    expect(res.headers.get("x-ratelimit-limit")).toBe("1000");
  });
});
