// FHIR XML → FHIR JSON (R4 xml.html and json.html): primitives from their value attribute, typed
// by the definitions (boolean, integer, decimal as JSON booleans and numbers); a primitive's id and
// extensions in its _name twin, null-padded in repeating elements; repeating elements as arrays
// whatever their count; choice elements keep their typed name; contained and entry resources
// unwrapped; Narrative.div as its XHTML string. Anything R4 does not define is refused, naming where.
import type { Resource } from "../port";
import { isResourceType } from "../definitions";
import { type Child, childOf, FHIR_NS, isAttribute, type Place, XHTML_NS } from "./structure";
import { xhtmlString } from "./xhtml";
import { type XmlElement, isMarkupAttribute, parseXml } from "./xml-tree";

export class FhirXmlError extends Error {}

type Json = Record<string, unknown>;

/** The resource an XML document holds; FhirXmlError (with where and why) when it is not R4 FHIR XML. */
export function resourceFromXml(text: string): Resource {
  return resourceOf(parseXml(text));
}

function resourceOf(element: XmlElement): Resource {
  if (element.uri !== FHIR_NS) throw new FhirXmlError(`<${element.name}> is not in the FHIR namespace (${FHIR_NS})`);
  if (!isResourceType(element.local)) throw new FhirXmlError(`<${element.local}> is not an R4 resource type`);
  const resource: Json = { resourceType: element.local };
  fill(resource, element, { type: element.local, path: "" }, element.local);
  return resource as Resource;
}

const INTEGER = /^[+-]?\d+$/;
const DECIMAL = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/;

function primitiveValue(type: string, value: string, where: string): unknown {
  switch (type) {
    case "boolean":
      if (value !== "true" && value !== "false") throw new FhirXmlError(`${where}: "${value}" is not a boolean`);
      return value === "true";
    case "integer":
    case "positiveInt":
    case "unsignedInt":
      if (!INTEGER.test(value)) throw new FhirXmlError(`${where}: "${value}" is not an integer`);
      return Number(value);
    case "decimal":
      if (!DECIMAL.test(value.trim())) throw new FhirXmlError(`${where}: "${value}" is not a decimal`);
      return Number(value);
    default:
      return value;
  }
}

/** A primitive element: its value (or null) and its id/extensions (or null). */
function primitiveOf(element: XmlElement, child: Child, where: string): [unknown, Json | null] {
  let value: unknown = null;
  const extra: Json = {};
  for (const a of element.attributes) {
    if (isMarkupAttribute(a)) continue;
    if (a.uri === "" && a.local === "value") value = primitiveValue(child.primitive, a.value, where);
    else if (a.uri === "" && a.local === "id") extra.id = a.value;
    else throw new FhirXmlError(`${where}: unexpected attribute ${a.name}`);
  }
  const extensions: Json[] = [];
  for (const c of element.children) {
    if (typeof c === "string") {
      if (c.trim()) throw new FhirXmlError(`${where}: a primitive's value goes in its value attribute, not in text`);
    } else if (c.uri === FHIR_NS && c.local === "extension") {
      const extension: Json = {};
      fill(extension, c, { type: "Extension", path: "" }, `${where}.extension`);
      extensions.push(extension);
    } else throw new FhirXmlError(`${where}: unexpected element <${c.name}> in a primitive`);
  }
  if (extensions.length) extra.extension = extensions;
  if (value === null && extensions.length === 0) throw new FhirXmlError(`${where}: has neither a value nor extensions`);
  return [value, Object.keys(extra).length ? extra : null];
}

function containedResource(element: XmlElement, where: string): Resource {
  const inner = element.children.filter((c): c is XmlElement => typeof c !== "string");
  if (inner.length !== 1 || element.children.some((c) => typeof c === "string" && c.trim())) throw new FhirXmlError(`${where}: must hold exactly one resource`);
  return resourceOf(inner[0]!);
}

interface Slot {
  child: Child;
  values: unknown[];
  extras: (Json | null)[];
}

function fill(out: Json, element: XmlElement, place: Place, where: string): void {
  for (const a of element.attributes) {
    if (isMarkupAttribute(a)) continue;
    if (a.uri === "" && isAttribute(place, a.local)) out[a.local] = a.value;
    else throw new FhirXmlError(`${where}: unexpected attribute ${a.name}`);
  }
  const slots = new Map<string, Slot>();
  for (const c of element.children) {
    if (typeof c === "string") {
      if (c.trim()) throw new FhirXmlError(`${where}: unexpected text "${c.trim().slice(0, 40)}"`);
      continue;
    }
    const path = `${where}.${c.local}`;
    const child = c.uri === FHIR_NS || c.uri === XHTML_NS ? childOf(place, c.local) : undefined;
    if (!child || c.uri !== (child.kind === "xhtml" ? XHTML_NS : FHIR_NS) || isAttribute(place, c.local)) throw new FhirXmlError(`${path}: not an element R4 defines here`);
    const slot = slots.get(child.key) ?? { child, values: [], extras: [] };
    slots.set(child.key, slot);
    if (!child.repeats && slot.values.length) throw new FhirXmlError(`${path}: appears more than once but allows one`);
    if (child.kind === "primitive") {
      const [value, extra] = primitiveOf(c, child, path);
      slot.values.push(value);
      slot.extras.push(extra);
      continue;
    }
    slot.extras.push(null);
    if (child.kind === "xhtml") slot.values.push(xhtmlString(c));
    else if (child.kind === "resource") slot.values.push(containedResource(c, path));
    else {
      const value: Json = {};
      fill(value, c, child.place, path);
      slot.values.push(value);
    }
  }
  for (const [key, { child, values, extras }] of slots) {
    const hasExtras = extras.some((e) => e !== null);
    if (child.repeats) {
      if (values.some((v) => v !== null)) out[key] = values;
      if (hasExtras) out[`_${key}`] = extras;
    } else {
      if (values[0] !== null) out[key] = values[0];
      if (hasExtras) out[`_${key}`] = extras[0];
    }
  }
}
