// FHIR JSON → FHIR XML (R4 xml.html): elements in definition order (the XML format's order is
// significant), primitives as value attributes with their _name twin's id and extensions, Element.id
// and Extension.url as attributes, contained and entry resources wrapped in their element,
// Narrative.div as XHTML. Properties R4 does not define (the store validates writes, so only data
// written before a rule existed) are kept, written after the defined ones as plain elements.
import { isResourceType } from "../definitions";
import type { Resource } from "../port";
import { childNames, childOf, FHIR_NS, isAttribute, type Place } from "./structure";
import { xhtmlXml } from "./xhtml";
import { escapeAttribute } from "./xml-tree";

type Json = Record<string, unknown>;

/** The resource as an FHIR XML document. */
export function resourceToXml(resource: Resource): string {
  const out: string[] = ['<?xml version="1.0" encoding="UTF-8"?>'];
  writeResource(out, resource, true);
  return out.join("");
}

function writeResource(out: string[], resource: Json, root: boolean): void {
  const type = String(resource.resourceType);
  out.push(`<${type}${root ? ` xmlns="${FHIR_NS}"` : ""}>`);
  writeContent(out, resource, { type, path: "" });
  out.push(`</${type}>`);
}

const rankCache = new Map<string, Map<string, number>>();

/** Definition order of the names under a place; a choice's typed names rank as its [x] name. */
function rankOf(place: Place, key: string): number {
  const cacheKey = `${place.type}|${place.path}`;
  let ranks = rankCache.get(cacheKey);
  if (!ranks) {
    ranks = new Map(childNames(place).map((n, i) => [n, i]));
    rankCache.set(cacheKey, ranks);
  }
  const exact = ranks.get(key);
  if (exact !== undefined) return exact;
  for (const [name, rank] of ranks) if (name.endsWith("[x]") && key.startsWith(name.slice(0, -3))) return rank;
  return Number.MAX_SAFE_INTEGER;
}

/** The start tag's attributes (Element.id, Extension.url) of an object at a place. */
function attributesOf(value: Json, place: Place): string {
  let attrs = "";
  for (const name of ["id", "url"]) if (isAttribute(place, name) && typeof value[name] === "string") attrs += ` ${name}="${escapeAttribute(value[name] as string)}"`;
  return attrs;
}

function writeContent(out: string[], value: Json, place: Place): void {
  const names = new Set<string>();
  // A resource's resourceType is its element name; elsewhere (ExampleScenario.instance) it is an element.
  const resourceRoot = place.path === "" && isResourceType(place.type);
  for (const key of Object.keys(value)) {
    if ((resourceRoot && key === "resourceType") || isAttribute(place, key)) continue;
    names.add(key.startsWith("_") ? key.slice(1) : key);
  }
  const ordered = [...names].sort((a, b) => rankOf(place, a) - rankOf(place, b));
  for (const name of ordered) {
    const child = childOf(place, name);
    const main = value[name];
    const extra = value[`_${name}`];
    if (!child) {
      writeUndefined(out, name, main);
      continue;
    }
    const values = Array.isArray(main) ? main : [main];
    const extras = Array.isArray(extra) ? extra : [extra];
    const n = Math.max(Array.isArray(main) ? main.length : main === undefined ? 0 : 1, Array.isArray(extra) ? extra.length : extra === undefined ? 0 : 1);
    for (let i = 0; i < n; i++) writeElement(out, name, child.kind, child.place, values[i], extras[i]);
  }
}

function writeElement(out: string[], name: string, kind: string, place: Place, value: unknown, extra: unknown): void {
  if (kind === "primitive") {
    writePrimitive(out, name, value, extra as Json | null | undefined);
  } else if (kind === "xhtml") {
    if (typeof value === "string") out.push(xhtmlXml(value));
  } else if (value && typeof value === "object" && kind === "resource") {
    out.push(`<${name}>`);
    writeResource(out, value as Json, false);
    out.push(`</${name}>`);
  } else if (value && typeof value === "object") {
    const start = out.push(`<${name}${attributesOf(value as Json, place)}>`);
    writeContent(out, value as Json, place);
    if (out.length === start) out[start - 1] = out[start - 1]!.replace(/>$/, "/>");
    else out.push(`</${name}>`);
  }
}

function writePrimitive(out: string[], name: string, value: unknown, extra: Json | null | undefined): void {
  const hasValue = value !== null && value !== undefined;
  if (!hasValue && !extra) return;
  let tag = `<${name}`;
  if (extra && typeof extra.id === "string") tag += ` id="${escapeAttribute(extra.id)}"`;
  if (hasValue) tag += ` value="${escapeAttribute(String(value))}"`;
  const extensions = Array.isArray(extra?.extension) ? (extra.extension as unknown[]) : [];
  if (extensions.length === 0) {
    out.push(`${tag}/>`);
    return;
  }
  out.push(`${tag}>`);
  for (const e of extensions) writeElement(out, "extension", "complex", { type: "Extension", path: "" }, e, undefined);
  out.push(`</${name}>`);
}

const XML_NAME = /^[A-Za-z_][A-Za-z0-9_.-]*$/;

/** A property no definition names: scalars as value attributes, objects as nested elements. */
function writeUndefined(out: string[], name: string, value: unknown): void {
  if (!XML_NAME.test(name) || value === undefined || value === null) return;
  for (const v of Array.isArray(value) ? value : [value]) {
    if (v === null || v === undefined) continue;
    if (typeof v !== "object") {
      out.push(`<${name} value="${escapeAttribute(String(v))}"/>`);
      continue;
    }
    out.push(`<${name}>`);
    for (const [k, inner] of Object.entries(v as Json)) writeUndefined(out, k, inner);
    out.push(`</${name}>`);
  }
}
