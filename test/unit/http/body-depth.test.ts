// The depth checks read any input without recursion: brackets inside strings (escaped quotes
// included) are text, and a value or text of any depth is measured without overflowing.
import { describe, expect, it } from "vitest";
import { MAX_BODY_DEPTH, jsonTextTooDeep, parseBoundedJson, valueTooDeep } from "../../../src/platform/http/body-depth";

const nested = (n: number) => `${'{"a":['.repeat(n)}1${"]}".repeat(n)}`;

describe("jsonTextTooDeep", () => {
  it("counts objects and arrays, up to the limit inclusive", () => {
    expect(jsonTextTooDeep("[".repeat(MAX_BODY_DEPTH) + "]".repeat(MAX_BODY_DEPTH))).toBe(false);
    expect(jsonTextTooDeep("[".repeat(MAX_BODY_DEPTH + 1) + "]".repeat(MAX_BODY_DEPTH + 1))).toBe(true);
    expect(jsonTextTooDeep(nested(50))).toBe(false);
    expect(jsonTextTooDeep(nested(51))).toBe(true);
    expect(jsonTextTooDeep("[[[]],[[]],[[]]]", 3)).toBe(false);
    expect(jsonTextTooDeep("[[[[]]]]", 3)).toBe(true);
  });

  it("skips strings, escaped quotes and backslashes included", () => {
    expect(jsonTextTooDeep(JSON.stringify({ a: "[".repeat(500) }))).toBe(false);
    expect(jsonTextTooDeep(JSON.stringify({ a: `\\"${"{".repeat(500)}\\` }))).toBe(false);
    expect(jsonTextTooDeep(JSON.stringify(["\\", "[[[["]), 1)).toBe(false);
    expect(jsonTextTooDeep(`["\\\\"${",[".repeat(3)}`, 3)).toBe(true);
    // An unterminated string ends the text: nothing more to count.
    expect(jsonTextTooDeep(`["${"[".repeat(500)}`)).toBe(false);
  });

  it("measures a million levels without overflowing", () => {
    expect(jsonTextTooDeep("[".repeat(1_000_000))).toBe(true);
  });
});

describe("valueTooDeep", () => {
  it("counts parsed objects and arrays without recursion", () => {
    expect(valueTooDeep(JSON.parse(nested(50)))).toBe(false);
    expect(valueTooDeep(JSON.parse(nested(51)))).toBe(true);
    expect(valueTooDeep(JSON.parse("[".repeat(200_000) + "]".repeat(200_000)))).toBe(true);
    expect(valueTooDeep("text")).toBe(false);
    expect(valueTooDeep(null)).toBe(false);
  });
});

describe("parseBoundedJson", () => {
  it("parses what is within the limit, refuses deeper with a 400 naming it, keeps syntax errors as such", () => {
    expect(parseBoundedJson('{"a":[1]}')).toEqual({ a: [1] });
    expect(() => parseBoundedJson("[".repeat(5000), "The webhook body")).toThrow(`The webhook body nests deeper than ${MAX_BODY_DEPTH} levels`);
    expect(() => parseBoundedJson("{")).toThrow(SyntaxError);
  });
});
