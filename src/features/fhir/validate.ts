// Structural validation against the base R4 StructureDefinitions (compact index): unknown
// elements, cardinality, primitive formats, choice types, required code bindings and
// reference formats/targets. Issues carry FHIRPath-style locations.
import type { FieldError } from "../../platform/errors";
import { isResourceType } from "./definitions";
import { parseReference } from "./index-extract";
import { ELEMENTS, type ElementInfo } from "./summary";
import { lookupTable } from "../../platform/object-keys";

const PRIMITIVE = lookupTable<(v: unknown) => boolean>({
  boolean: (v) => typeof v === "boolean",
  integer: (v) => Number.isInteger(v),
  positiveInt: (v) => Number.isInteger(v) && (v as number) > 0,
  unsignedInt: (v) => Number.isInteger(v) && (v as number) >= 0,
  decimal: (v) => typeof v === "number" && Number.isFinite(v),
  string: (v) => typeof v === "string" && v.length > 0,
  markdown: (v) => typeof v === "string" && v.length > 0,
  xhtml: (v) => typeof v === "string",
  code: (v) => typeof v === "string" && /^[^\s]+(\s[^\s]+)*$/.test(v),
  id: (v) => typeof v === "string" && /^[A-Za-z0-9\-.]{1,64}$/.test(v),
  uri: (v) => typeof v === "string" && v.length > 0 && !/\s/.test(v),
  url: (v) => typeof v === "string" && v.length > 0 && !/\s/.test(v),
  canonical: (v) => typeof v === "string" && v.length > 0 && !/\s/.test(v),
  oid: (v) => typeof v === "string" && /^urn:oid:[0-2](\.(0|[1-9][0-9]*))+$/.test(v),
  uuid: (v) => typeof v === "string" && /^urn:uuid:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(v),
  base64Binary: (v) => typeof v === "string" && /^[A-Za-z0-9+/=\s]*$/.test(v),
  date: (v) => typeof v === "string" && /^\d{4}(-(0[1-9]|1[0-2])(-(0[1-9]|[12]\d|3[01]))?)?$/.test(v),
  dateTime: (v) =>
    typeof v === "string" &&
    /^\d{4}(-(0[1-9]|1[0-2])(-(0[1-9]|[12]\d|3[01])(T([01]\d|2[0-3]):[0-5]\d:([0-5]\d|60)(\.\d+)?(Z|[+-]((0\d|1[0-3]):[0-5]\d|14:00)))?)?)?$/.test(v),
  instant: (v) =>
    typeof v === "string" &&
    /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])T([01]\d|2[0-3]):[0-5]\d:([0-5]\d|60)(\.\d+)?(Z|[+-]((0\d|1[0-3]):[0-5]\d|14:00))$/.test(v),
  time: (v) => typeof v === "string" && /^([01]\d|2[0-3]):[0-5]\d:([0-5]\d|60)(\.\d+)?$/.test(v),
});

interface Child {
  name: string;
  info: ElementInfo;
  /** For value[x]: the allowed type suffixes. */
  choice?: string[];
}

const childCache = new Map<string, Map<string, Child>>();

/** Direct children of `prefix` in a structure's element map, by property name. */
function childrenOf(structure: string, prefix: string): Map<string, Child> {
  const cacheKey = `${structure}|${prefix}`;
  let out = childCache.get(cacheKey);
  if (out) return out;
  out = new Map();
  const start = prefix ? `${prefix}.` : "";
  for (const [path, info] of Object.entries(ELEMENTS[structure] ?? {})) {
    if (!path.startsWith(start)) continue;
    const name = path.slice(start.length);
    if (name.includes(".")) continue;
    if (name.endsWith("[x]")) out.set(name.slice(0, -3), { name, info, choice: info[2].split("|") });
    else out.set(name, { name, info });
  }
  childCache.set(cacheKey, out);
  return out;
}

const upperFirst = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/** Resolves an instance property (valueQuantity) to its element and concrete type. */
function resolveProperty(children: Map<string, Child>, key: string): { child: Child; type: string } | undefined {
  const direct = children.get(key);
  if (direct && !direct.choice) return { child: direct, type: direct.info[2] };
  for (const child of children.values()) {
    if (!child.choice) continue;
    const base = child.name.slice(0, -3);
    if (!key.startsWith(base)) continue;
    const type = child.choice.find((t) => upperFirst(t.split("(")[0]!) === key.slice(base.length));
    if (type) return { child, type };
  }
  return undefined;
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** The JSON type each primitive is written as (R4 json.html): the shape check looks no further. */
const JSON_TYPE_OF = (type: string): "boolean" | "number" | "string" => (type === "boolean" ? "boolean" : ["integer", "positiveInt", "unsignedInt", "decimal"].includes(type) ? "number" : "string");

class Validator {
  readonly issues: FieldError[] = [];
  /** `shapeOnly`: JSON types only (objects, arrays, primitives' JSON types, no nulls); no cardinality, format or binding. */
  constructor(readonly shapeOnly = false) {}
  err(path: string, message: string) {
    if (this.issues.length < 100) this.issues.push({ path, message });
  }

  resource(value: unknown, path: string) {
    if (!isObj(value) || typeof value.resourceType !== "string") return this.err(path, "Expected a resource with a resourceType");
    if (!isResourceType(value.resourceType)) return this.shapeOnly ? undefined : this.err(path, `Unknown resource type ${value.resourceType}`);
    this.object(value, value.resourceType, "", path || value.resourceType, true);
  }

  object(obj: Record<string, unknown>, structure: string, prefix: string, path: string, isResource = false) {
    const children = childrenOf(structure, prefix);
    for (const [key, value] of Object.entries(obj)) {
      // In-process callers may leave fields undefined: absent, as JSON would make them.
      if (value === undefined) continue;
      if (isResource && key === "resourceType") continue;
      if (key === "fhir_comments") continue;
      if (key.startsWith("_")) {
        // Primitive extension of a sibling element: must be an object or array of them.
        if (!resolveProperty(children, key.slice(1))) this.err(`${path}.${key}`, `Unknown element ${key}`);
        continue;
      }
      const resolved = resolveProperty(children, key);
      if (!resolved) {
        if (this.shapeOnly) continue;
        this.err(`${path}.${key}`, `Unknown element ${key} in ${structure}${prefix ? `.${prefix}` : ""}`);
        continue;
      }
      const [, max, , codes] = resolved.child.info;
      const items = Array.isArray(value) ? value : [value];
      if (Array.isArray(value) && max === 1) this.err(`${path}.${key}`, `${key} must be a single value, not an array`);
      if (!Array.isArray(value) && max !== 1) this.err(`${path}.${key}`, `${key} must be an array`);
      if (!this.shapeOnly && Array.isArray(value) && max > 1 && value.length > max) this.err(`${path}.${key}`, `${key} allows at most ${max} values`);
      for (const [i, item] of items.entries()) {
        const at = Array.isArray(value) ? `${path}.${key}[${i}]` : `${path}.${key}`;
        if (item === null) {
          this.err(at, "null is not a valid FHIR value");
          continue;
        }
        this.value(item, resolved.type, structure, prefix ? `${prefix}.${resolved.child.name}` : resolved.child.name, at);
        if (!this.shapeOnly && codes && typeof item === "string" && !codes.includes(item)) {
          this.err(at, `Value '${item}' is not in the required value set (${codes.slice(0, 10).join(", ")}${codes.length > 10 ? ", ..." : ""})`);
        }
      }
    }
    if (this.shapeOnly) return;
    for (const [name, child] of children) {
      if (child.info[0] > 0 && !(child.choice ? Object.keys(obj).some((k) => resolveProperty(children, k)?.child === child) : obj[name] !== undefined || obj[`_${name}`] !== undefined)) {
        this.err(`${path}.${name}`, `${child.name} is required (min ${child.info[0]})`);
      }
    }
  }

  value(item: unknown, typeSpec: string, structure: string, elementPath: string, at: string) {
    const type = typeSpec.split("(")[0]!;
    const primitive = PRIMITIVE[type];
    if (primitive && this.shapeOnly) {
      if (typeof item !== JSON_TYPE_OF(type)) this.err(at, `Expected a ${JSON_TYPE_OF(type)} (${type}), got ${JSON.stringify(item).slice(0, 60)}`);
      return;
    }
    if (primitive) {
      if (!primitive(item)) this.err(at, `Invalid ${type} value ${JSON.stringify(item).slice(0, 60)}`);
      return;
    }
    if (type === "Resource" || isResourceType(type)) return this.resource(item, at);
    if (!isObj(item)) return this.err(at, `Expected an object of type ${type}`);
    if (type === "BackboneElement" || type === "Element") return this.object(item, structure, elementPath, at);
    if (type.startsWith("@")) return this.object(item, structure, type.slice(1), at);
    if (!ELEMENTS[type]) return;
    this.object(item, type, "", at);
    if (type === "Reference" && !this.shapeOnly) this.reference(item, typeSpec, at);
  }

  reference(item: Record<string, unknown>, typeSpec: string, at: string) {
    const ref = item.reference;
    if (typeof ref !== "string") return;
    if (ref.startsWith("#") || ref.startsWith("urn:uuid:") || ref.startsWith("urn:oid:")) return;
    // Conditional references are resolved in transactions before validation.
    if (/^[A-Z][A-Za-z]+\?/.test(ref)) return;
    const parsed = parseReference(ref);
    if (/^https?:\/\//.test(ref)) return;
    if (!parsed || !/^[A-Z][A-Za-z]+\/[A-Za-z0-9\-.]{1,64}(\/_history\/[A-Za-z0-9\-.]{1,64})?$/.test(ref)) {
      return this.err(`${at}.reference`, `Invalid reference format '${ref}'`);
    }
    const targets = /\((.*)\)/.exec(typeSpec)?.[1]?.split(",");
    if (targets && !targets.includes(parsed.type)) {
      this.err(`${at}.reference`, `Reference to ${parsed.type} is not allowed here (allowed: ${targets.join(", ")})`);
    }
  }
}

/** Issues found in a resource; empty when it conforms to the base definitions. */
export function validateResource(resource: unknown): FieldError[] {
  const v = new Validator();
  v.resource(resource, "");
  return v.issues;
}

/**
 * Where a resource's elements have the wrong JSON type (an object where R4 has an array, a string
 * where it has an object, a null): what code reading it before validation (an implementation
 * guide's check) could trip on. Empty does not mean it conforms: that is validateResource.
 */
export function shapeIssues(resource: unknown): FieldError[] {
  const v = new Validator(true);
  v.resource(resource, "");
  return v.issues;
}
