import { describe, expect, it } from "vitest";
import { ClientWindows } from "../../../src/features/tenancy/limits/client-windows";

describe("client windows", () => {
  it("counts per client in epoch-aligned minutes; a refused request counts nothing", () => {
    const w = new ClientWindows();
    const t0 = Date.UTC(2026, 0, 1, 0, 0, 45);
    expect(w.consume("a", 2, t0).buckets[0]).toEqual({ name: "client", limit: 2, remaining: 1, reset: Date.UTC(2026, 0, 1, 0, 1, 0) / 1000 });
    expect(w.consume("a", 2, t0).allowed).toBe(true);
    expect(w.consume("a", 2, t0 + 5_000)).toMatchObject({ allowed: false, retryAfter: 10, buckets: [{ remaining: 0 }] });
    expect(w.consume("b", 2, t0).allowed).toBe(true);
    expect(w.consume("a", 2, Date.UTC(2026, 0, 1, 0, 1, 0))).toMatchObject({ allowed: true, buckets: [{ remaining: 1 }] });
  });

  it("forgets the least recently seen client beyond its capacity", () => {
    const w = new ClientWindows(2);
    w.consume("a", 1, 0);
    w.consume("b", 1, 0);
    w.consume("c", 1, 0);
    expect(w.consume("b", 1, 0).allowed).toBe(false);
    expect(w.consume("a", 1, 0).allowed).toBe(true);
  });
});
