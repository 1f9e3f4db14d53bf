// Date precision ranges, number precision ranges and string folding used by index and search.
import { describe, expect, it } from "vitest";
import { dateRange, foldString, numberRange } from "../../../src/features/fhir/values";

describe("dateRange", () => {
  it("covers the whole period a value's precision names", () => {
    expect(dateRange("2020")).toEqual({ low: "2020-01-01T00:00:00.000Z", high: "2020-12-31T23:59:59.999Z" });
    expect(dateRange("2020-02")).toEqual({ low: "2020-02-01T00:00:00.000Z", high: "2020-02-29T23:59:59.999Z" });
    expect(dateRange("2020-02-15")).toEqual({ low: "2020-02-15T00:00:00.000Z", high: "2020-02-15T23:59:59.999Z" });
    expect(dateRange("2020-02-15T10:00:00+02:00")).toEqual({ low: "2020-02-15T08:00:00.000Z", high: "2020-02-15T08:00:00.999Z" });
    expect(dateRange("2020-02-15T10:00")).toEqual({ low: "2020-02-15T10:00:00.000Z", high: "2020-02-15T10:00:59.999Z" });
    expect(dateRange("2020-02-15T10:00:00.5Z")).toEqual({ low: "2020-02-15T10:00:00.500Z", high: "2020-02-15T10:00:00.500Z" });
  });
  it("rejects what is not a FHIR date", () => {
    expect(dateRange("2020-13")).toBeUndefined();
    expect(dateRange("yesterday")).toBeUndefined();
  });
});

describe("numberRange", () => {
  it("uses the implicit precision of the search value", () => {
    expect(numberRange("100")).toEqual({ value: 100, low: 99.5, high: 100.5 });
    const r = numberRange("1.50")!;
    expect(r.low).toBeCloseTo(1.495, 10);
    expect(r.high).toBeCloseTo(1.505, 10);
    // 1e2 has one significant figure: [50, 150), as in the R4 search page.
    expect(numberRange("1e2")).toEqual({ value: 100, low: 50, high: 150 });
    expect(numberRange("abc")).toBeUndefined();
  });
});

describe("foldString", () => {
  it("lower-cases and strips accents", () => {
    expect(foldString("Álvarez Zoë")).toBe("alvarez zoe");
  });
});
