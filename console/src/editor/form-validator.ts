// RJSF's ValidatorType over @cfworker/json-schema. RJSF ships only Ajv-based validators, and Ajv
// compiles each schema with `new Function`, which the console's CSP (`script-src 'self'`) forbids;
// @cfworker/json-schema interprets the schema instead. Its errors become RJSF's: one per failing
// leaf keyword, at the property it concerns (a missing required property at that property, as
// Ajv's adapter does), so the form shows each error beside its field.
import { type OutputUnit, type Schema, validate as cfValidate, dereference } from "@cfworker/json-schema";
import {
  type CustomValidator,
  createErrorHandler,
  type ErrorTransformer,
  getDefaultFormState,
  type RJSFSchema,
  type RJSFValidationError,
  toErrorSchema,
  type UiSchema,
  unwrapErrorHandler,
  type ValidationData,
  type ValidatorType,
  validationDataMerge,
} from "@rjsf/utils";

type Draft = "4" | "7" | "2019-09" | "2020-12";

// Keywords whose error only summarises errors reported beneath it (cfworker reports both).
const SUMMARY_KEYWORDS = new Set(["properties", "patternProperties", "additionalProperties", "items", "prefixItems", "additionalItems", "allOf", "$ref", "dependentSchemas", "unevaluatedProperties", "unevaluatedItems", "if", "then", "else", "contains"]);
const REQUIRED_PROPERTY = /required property "(.*)"/;

function draftOf(schema: RJSFSchema): Draft {
  const uri = typeof schema.$schema === "string" ? schema.$schema : "";
  if (uri.includes("draft-04")) return "4";
  if (uri.includes("draft-07") || uri.includes("draft-06")) return "7";
  if (uri.includes("2019-09")) return "2019-09";
  return "2020-12";
}

// dereference() annotates the schema objects it walks, so it gets copies, never RJSF's own.
const copy = <T>(value: T): T => structuredClone(value);
// Form data holds `undefined` for cleared fields, which cfworker refuses as an instance; JSON drops them.
const instanceOf = (data: unknown, fallback: unknown): unknown => (data === undefined ? fallback : JSON.parse(JSON.stringify(data)));

/** `#/a/0/b` (a JSON pointer fragment) as RJSF's property path `.a.0.b` (what its toErrorSchema splits, as Ajv's adapter writes it). */
function propertyOf(instanceLocation: string, extra?: string): string {
  const segments = instanceLocation
    .replace(/^#/, "")
    .split("/")
    .slice(1)
    .map((s) => decodeURIComponent(s).replace(/~1/g, "/").replace(/~0/g, "~"));
  if (extra !== undefined) segments.push(extra);
  return segments.map((s) => `.${s}`).join("");
}

/** cfworker's output units as RJSF validation errors, summaries dropped. */
export function toRjsfErrors(units: OutputUnit[]): RJSFValidationError[] {
  const errors: RJSFValidationError[] = [];
  for (const unit of units) {
    if (SUMMARY_KEYWORDS.has(unit.keyword)) continue;
    const missing = unit.keyword === "required" ? REQUIRED_PROPERTY.exec(unit.error)?.[1] : undefined;
    const property = propertyOf(unit.instanceLocation, missing);
    const message = missing !== undefined ? "is a required property" : unit.error;
    errors.push({ name: unit.keyword, property, message, params: missing !== undefined ? { missingProperty: missing } : {}, schemaPath: unit.keywordLocation, stack: `${property || "."} ${message}`.trim() });
  }
  return errors;
}

export class CfworkerValidator<T = unknown> implements ValidatorType<T, RJSFSchema> {
  rawValidation<Result = OutputUnit>(schema: RJSFSchema, formData?: T): { errors?: Result[]; validationError?: Error } {
    try {
      const own = copy(schema) as Schema;
      const result = cfValidate(instanceOf(formData, {}), own, draftOf(schema), dereference(own), false);
      return { errors: result.errors as Result[] };
    } catch (e) {
      return { validationError: e instanceof Error ? e : new Error(String(e)) };
    }
  }

  validateFormData(formData: T | undefined, schema: RJSFSchema, customValidate?: CustomValidator<T, RJSFSchema>, transformErrors?: ErrorTransformer<T, RJSFSchema>, uiSchema?: UiSchema<T, RJSFSchema>): ValidationData<T> {
    const raw = this.rawValidation<OutputUnit>(schema, formData);
    let errors = toRjsfErrors(raw.errors ?? []);
    if (raw.validationError) errors.push({ stack: raw.validationError.message, message: raw.validationError.message });
    if (transformErrors) errors = transformErrors(errors, uiSchema);
    let errorSchema = toErrorSchema<T>(errors);
    if (raw.validationError) errorSchema = { ...errorSchema, $schema: { __errors: [raw.validationError.message] } } as typeof errorSchema;
    if (!customValidate) return { errors, errorSchema };
    const withDefaults = getDefaultFormState<T, RJSFSchema>(this, schema, formData, schema, true) as T;
    const handler = customValidate(withDefaults, createErrorHandler<T>(withDefaults), uiSchema);
    return validationDataMerge<T>({ errors, errorSchema }, unwrapErrorHandler<T>(handler));
  }

  /** Whether data matches a schema RJSF resolved out of `rootSchema`; its `#/…` references point into the root. */
  isValid(schema: RJSFSchema, formData: T | undefined, rootSchema: RJSFSchema): boolean {
    try {
      const own = copy(schema) as Schema;
      const root = copy(rootSchema) as Schema;
      // The root's entries win, so `#/$defs/x` resolves in the root as RJSF means it.
      const lookup = Object.assign(dereference(own), dereference(root));
      return cfValidate(instanceOf(formData, null), own, draftOf(rootSchema), lookup, true).valid;
    } catch {
      return false;
    }
  }
}
