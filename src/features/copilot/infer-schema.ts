// infer/schema: a JSON Schema (2020-12) from sample values. Types are merged across samples
// (an integer and a number make a number), an object's required fields are those present in
// every sample, strings get a format when every sample has it, and a field with few distinct
// string values over enough samples becomes an enum. Array items are inferred from every
// element of every sample.

export interface InferOptions {
  /** At most this many distinct values make an enum. */
  maxEnum?: number;
  /** An enum needs at least this many observations (so two samples do not fix a value set). */
  minEnumSamples?: number;
}

type JsonSchema = Record<string, unknown>;

const FORMATS: [string, RegExp][] = [
  ["date-time", /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$/],
  ["date", /^\d{4}-\d{2}-\d{2}$/],
  ["time", /^\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})?$/],
  ["email", /^[^\s@]+@[^\s@.]+(?:\.[^\s@.]+)+$/],
  ["uuid", /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i],
  ["uri", /^[a-z][a-z0-9+.-]*:\/\/[^\s]+$/i],
];

const typeOf = (v: unknown): string =>
  v === null ? "null" : Array.isArray(v) ? "array" : typeof v === "number" ? (Number.isInteger(v) ? "integer" : "number") : typeof v;

function formatOf(values: string[]): string | undefined {
  if (!values.length) return undefined;
  return FORMATS.find(([, re]) => values.every((s) => re.test(s)))?.[0];
}

function inferAll(values: unknown[], opts: Required<InferOptions>): JsonSchema {
  if (!values.length) return {};
  const byType = new Map<string, unknown[]>();
  for (const v of values) {
    const t = typeOf(v);
    byType.set(t, [...(byType.get(t) ?? []), v]);
  }
  if (byType.has("integer") && byType.has("number")) {
    byType.set("number", [...(byType.get("number") ?? []), ...(byType.get("integer") ?? [])]);
    byType.delete("integer");
  }
  const variants = [...byType.entries()].map(([t, vs]) => schemaFor(t, vs, opts));
  if (variants.length === 1) return variants[0] as JsonSchema;
  // Only scalar types: one schema with a type list; mixed structures: anyOf.
  if (variants.every((v) => Object.keys(v).length === 1)) return { type: variants.map((v) => v.type) };
  return { anyOf: variants };
}

function schemaFor(type: string, values: unknown[], opts: Required<InferOptions>): JsonSchema {
  switch (type) {
    case "object": {
      const objects = values as Record<string, unknown>[];
      const keys = [...new Set(objects.flatMap((o) => Object.keys(o)))];
      const properties: Record<string, JsonSchema> = {};
      for (const k of keys) properties[k] = inferAll(objects.filter((o) => k in o).map((o) => o[k]), opts);
      const required = keys.filter((k) => objects.every((o) => k in o));
      return { type: "object", properties, ...(required.length ? { required } : {}) };
    }
    case "array":
      return { type: "array", items: inferAll((values as unknown[][]).flat(), opts) };
    case "string": {
      const strings = values as string[];
      const format = formatOf(strings);
      if (format) return { type: "string", format };
      const distinct = [...new Set(strings)];
      if (strings.length >= opts.minEnumSamples && distinct.length <= opts.maxEnum && distinct.length < strings.length) {
        return { type: "string", enum: distinct.sort() };
      }
      return { type: "string" };
    }
    default:
      return { type };
  }
}

export function inferSchema(samples: unknown[], options: InferOptions = {}): JsonSchema {
  const opts = { maxEnum: options.maxEnum ?? 10, minEnumSamples: options.minEnumSamples ?? 3 };
  return { $schema: "https://json-schema.org/draft/2020-12/schema", ...inferAll(samples, opts) };
}
