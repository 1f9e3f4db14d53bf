import { describe, expect, it } from "vitest";
import { newResourceId } from "../../../src/features/fhir/resource-id";

describe("server-assigned resource ids", () => {
  it("are UUIDv7 carrying the creation time, valid FHIR ids", () => {
    const before = Date.now();
    const id = newResourceId();
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(id).toMatch(/^[A-Za-z0-9\-.]{1,64}$/);
    const ms = Number.parseInt(id.replace(/-/g, "").slice(0, 12), 16);
    expect(ms).toBeGreaterThanOrEqual(before);
    expect(ms).toBeLessThanOrEqual(Date.now() + 1);
  });

  it("sort in creation order, also many within one millisecond, and never repeat", () => {
    const ids = Array.from({ length: 20_000 }, () => newResourceId());
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
  });
});
