import { describe, expect, it } from "vitest";
import { CompletionContext } from "@codemirror/autocomplete";
import { EditorState } from "@codemirror/state";
import { completeFields, fieldPaths } from "../../../console/src/editor/expression-fields";

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

describe("completeFields", () => {
  const at = (doc: string, explicit = false) => completeFields(() => fieldPaths({ name: { family: "L" } }))(new CompletionContext(EditorState.create({ doc }), doc.length, explicit));

  it("offers the sample's paths for the word being typed", () => {
    const result = at('{"hi": na');
    expect(result?.from).toBe(7);
    expect(result?.options.map((o) => o.label)).toEqual(["name", "name.family"]);
  });

  it("offers nothing unasked after a non-word, everything on Ctrl+Space", () => {
    expect(at('{"hi": ')).toBeNull();
    expect(at('{"hi": ', true)?.options).toHaveLength(2);
  });
});
