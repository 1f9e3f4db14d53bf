// The isolate's memory of search drivers' densities (src/features/fhir/search/driver-density.ts):
// an answer stands for DENSITY_TTL_MS, then is counted afresh; a forgotten one is gone at once.
import { describe, expect, it } from "vitest";
import { DENSITY_TTL_MS, DriverDensity } from "../../../src/features/fhir/search/driver-density";

describe("driver density memory", () => {
  it("remembers an answer until its TTL, then forgets it", () => {
    let now = 1_000;
    const d = new DriverDensity(() => now);
    expect(d.get("a")).toBeUndefined();
    d.set("a", true);
    d.set("b", false);
    expect(d.get("a")).toBe(true);
    expect(d.get("b")).toBe(false);
    now += DENSITY_TTL_MS - 1;
    expect(d.get("a")).toBe(true);
    now += 1;
    expect(d.get("a")).toBeUndefined();
  });

  it("forgets an answer on demand (a plan it chose was refused)", () => {
    const d = new DriverDensity(() => 0);
    d.set("a", true);
    d.forget("a");
    expect(d.get("a")).toBeUndefined();
  });

  it("keeps a bounded number of answers, dropping the oldest", () => {
    const d = new DriverDensity(() => 0);
    for (let i = 0; i < 2_001; i++) d.set(`k${i}`, true);
    expect(d.get("k0")).toBeUndefined();
    expect(d.get("k1")).toBe(true);
    expect(d.get("k2000")).toBe(true);
  });
});
