// The benchmarks' guards against figures that measured nothing and options read wrong.
import { describe, expect, it } from "vitest";
import { NothingMeasured, allMeasured, measured, sampled } from "../../../bench/lib/measured";
import { numberOption, option } from "../../../bench/lib/options";

describe("measured", () => {
  it("answers a finite positive figure", () => {
    expect(measured({ label: "reads/s", value: 412.5 })).toBe(412.5);
    expect(allMeasured([{ label: "a", value: 1 }, { label: "b", value: 2, errors: 0 }])).toEqual([1, 2]);
  });

  it.each([
    [Number.NaN, /reads\/s: measured NaN/],
    [Number.POSITIVE_INFINITY, /measured Infinity/],
    [0, /measured 0; nothing was done/],
    [-3, /measured -3/],
  ])("refuses %s", (value, message) => {
    expect(() => measured({ label: "reads/s", value })).toThrow(NothingMeasured);
    expect(() => measured({ label: "reads/s", value })).toThrow(message);
  });

  it("refuses a figure measured with errors", () => {
    expect(() => measured({ label: "FHIR read req/s", value: 900, errors: 3 })).toThrow("FHIR read req/s: 3 errors while measuring");
  });

  it("refuses when any of several figures measured nothing", () => {
    expect(() => allMeasured([{ label: "ok", value: 5 }, { label: "trivial", value: Number.NaN }])).toThrow(/trivial/);
  });

  it("refuses an empty sample or one holding NaN", () => {
    expect(sampled("latency", [1, 2])).toEqual([1, 2]);
    expect(() => sampled("latency", [])).toThrow("latency: empty sample");
    expect(() => sampled("latency", [1, Number.NaN])).toThrow("latency: sample holds NaN");
  });
});

describe("numberOption", () => {
  const argv = (...args: string[]) => ["/usr/bin/node", "bench/fhir-http.ts", ...args];

  it("takes the default when the option is absent (not the interpreter's path)", () => {
    expect(numberOption("seconds", 10, { argv: argv() })).toBe(10);
    expect(numberOption("seconds", 10, { argv: argv("--patients", "5") })).toBe(10);
  });

  it("reads the value after the option", () => {
    expect(numberOption("seconds", 10, { argv: argv("--seconds", "2.5") })).toBe(2.5);
    expect(option("state", argv("--state", "bench-state"))).toBe("bench-state");
    expect(numberOption("patients", 1000, { integer: true, argv: argv("--patients", "20") })).toBe(20);
    expect(() => numberOption("patients", 1000, { integer: true, argv: argv("--patients", "2.5") })).toThrow("--patients must be a positive integer, not 2.5");
  });

  it("takes 0 only where a step may be skipped", () => {
    expect(numberOption("mqtt", 5000, { integer: true, zero: true, argv: argv("--mqtt", "0") })).toBe(0);
    expect(() => numberOption("mqtt", 5000, { integer: true, zero: true, argv: argv("--mqtt", "-1") })).toThrow("--mqtt must be a non-negative integer, not -1");
  });

  it.each([[["--seconds"]], [["--seconds", "abc"]], [["--seconds", "0"]], [["--seconds", "--patients", "3"]]])("refuses %j", (args) => {
    expect(() => numberOption("seconds", 10, { argv: argv(...args) })).toThrow(/--seconds/);
  });
});
