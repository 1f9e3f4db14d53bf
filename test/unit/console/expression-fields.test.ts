import { describe, expect, it } from "vitest";
import { fieldPaths } from "../../../console/src/editor/expression-fields";

describe("fieldPaths", () => {
  it("lists nested fields as JSONata paths, looking through arrays, quoting keys JSONata cannot name bare", () => {
    expect(fieldPaths({ name: [{ given: ["Ada"], family: "L" }], "birth-date": "1815", n: null })).toEqual([
      { path: "name", kind: "array" },
      { path: "name.given", kind: "array" },
      { path: "name.family", kind: "string" },
      { path: "`birth-date`", kind: "string" },
      { path: "n", kind: "null" },
    ]);
  });

  it("has nothing to offer for a scalar or no sample", () => {
    expect(fieldPaths("text")).toEqual([]);
    expect(fieldPaths(undefined)).toEqual([]);
  });
});
