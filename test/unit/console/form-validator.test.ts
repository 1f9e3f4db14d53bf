// The console's RJSF validator over @cfworker/json-schema (console/src/editor/form-validator.ts):
// errors land on the field they concern, custom validation merges in, $refs resolve in the root.
import { describe, expect, it } from "vitest";
import type { RJSFSchema } from "@rjsf/utils";
import { CfworkerValidator } from "../../../console/src/editor/form-validator";

const schema: RJSFSchema = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  type: "object",
  properties: {
    expression: { type: "string", minLength: 1 },
    retries: { type: "integer", minimum: 0, maximum: 5 },
    target: { type: "object", properties: { "base-url": { type: "string", format: "uri" } }, required: ["base-url"] },
    tags: { type: "array", items: { type: "string" } },
  },
  required: ["expression"],
  additionalProperties: false,
};

interface Config {
  expression?: string;
  retries?: number;
  target?: { "base-url"?: string };
  tags?: unknown[];
  extra?: unknown;
  port?: number;
  a?: unknown;
}

const validator = new CfworkerValidator<Config>();

describe("CfworkerValidator", () => {
  it("accepts valid data with no errors", () => {
    const result = validator.validateFormData({ expression: "$", retries: 2, tags: ["a"] }, schema);
    expect(result.errors).toEqual([]);
    expect(result.errorSchema).toEqual({});
  });

  it("puts a missing required property's error on that property", () => {
    const result = validator.validateFormData({}, schema);
    expect(result.errors).toEqual([expect.objectContaining({ name: "required", property: ".expression", message: "is a required property", params: { missingProperty: "expression" } })]);
    expect(result.errorSchema).toEqual({ expression: { __errors: ["is a required property"] } });
  });

  it("reports each failing leaf at its path, nested and in arrays, without the summaries above it", () => {
    const result = validator.validateFormData({ expression: "", retries: 9, target: {}, tags: ["ok", 3] }, schema);
    const byProperty = Object.fromEntries(result.errors.map((e) => [e.property, e.name]));
    expect(byProperty).toEqual({ ".expression": "minLength", ".retries": "maximum", ".target.base-url": "required", ".tags.1": "type" });
    expect(result.errorSchema.retries?.__errors?.[0]).toMatch(/5/);
    expect(result.errorSchema.target?.["base-url"]?.__errors).toEqual(["is a required property"]);
    expect(result.errorSchema.tags?.[1]?.__errors?.[0]).toMatch(/string/);
  });

  it("reports a property the schema does not allow", () => {
    const result = validator.validateFormData({ expression: "$", extra: 1 }, schema);
    expect(result.errors.length).toBeGreaterThan(0);
    expect(result.errors.every((e) => e.property === ".extra")).toBe(true);
  });

  it("ignores cleared (undefined) fields instead of failing", () => {
    expect(validator.validateFormData({ expression: "$", retries: undefined }, schema).errors).toEqual([]);
  });

  it("merges transformErrors and customValidate as RJSF expects", () => {
    const result = validator.validateFormData(
      { expression: "x", retries: 1 },
      schema,
      (data, errors) => {
        if (data?.expression === "x") errors.expression?.addError("not x");
        return errors;
      },
      (errors) => errors,
    );
    expect(result.errorSchema.expression?.__errors).toEqual(["not x"]);
    expect(result.errors.map((e) => e.stack)).toContain(".expression not x");
  });

  it("answers isValid with $refs resolved in the root schema", () => {
    const root: RJSFSchema = { $defs: { port: { type: "integer", minimum: 1 } }, type: "object", properties: { port: { $ref: "#/$defs/port" } } };
    const option: RJSFSchema = { type: "object", properties: { port: { $ref: "#/$defs/port" } }, required: ["port"] };
    expect(validator.isValid(option, { port: 8080 }, root)).toBe(true);
    expect(validator.isValid(option, { port: 0 }, root)).toBe(false);
    expect(validator.isValid(option, {}, root)).toBe(false);
    // The schema objects RJSF passes are left as they were.
    expect(Object.getOwnPropertyNames(option)).toEqual(["type", "properties", "required"]);
  });

  it("reports a schema it cannot use as a validation error instead of throwing", () => {
    const broken = { type: "object", properties: { a: { $ref: "#/$defs/missing" } } } as RJSFSchema;
    const result = validator.validateFormData({ a: 1 }, broken);
    expect(result.errors.at(-1)?.stack).toMatch(/missing|Unresolved/i);
  });
});
