// Where an element sits in the R4 definitions (generated/elements.json, the same index _summary
// uses): what a child named N of an element is (its JSON key, its type, whether it repeats), and
// the order the XML format writes children in. Choice elements (value[x]) are resolved from the
// type suffix of their name; content references (Questionnaire item.item) from the path they name.
import { isResourceType } from "../definitions";
import { ELEMENTS, type ElementInfo } from "../summary";

/** An element's place: the type whose definition holds it and its path inside that type ("" at the root). */
export interface Place {
  type: string;
  path: string;
}

export type Kind = "primitive" | "xhtml" | "resource" | "complex";

export interface Child {
  /** The JSON property: the element name as written (valueQuantity, not value[x]). */
  key: string;
  repeats: boolean;
  kind: Kind;
  /** Where the child's own children are defined (complex kinds only). */
  place: Place;
  /** The primitive type (boolean, decimal, ...), for primitive kinds. */
  primitive: string;
}

const isPrimitive = (type: string) => /^[a-z]/.test(type) || type.startsWith("http://hl7.org/fhirpath/");

const kindOf = (type: string): Kind => (type === "xhtml" ? "xhtml" : isPrimitive(type) ? "primitive" : type === "Resource" || isResourceType(type) ? "resource" : "complex");

const defsOf = (type: string): Record<string, ElementInfo> => ELEMENTS[type] ?? {};

function childFrom(place: Place, defKey: string, info: ElementInfo, key: string, type: string): Child {
  const repeats = info[1] !== 1;
  if (type.startsWith("@")) return { key, repeats, kind: "complex", place: { type: place.type, path: type.slice(1) }, primitive: "" };
  if (type === "BackboneElement" || type === "Element") return { key, repeats, kind: "complex", place: { type: place.type, path: defKey }, primitive: "" };
  const kind = kindOf(type);
  return { key, repeats, kind, place: { type, path: "" }, primitive: kind !== "primitive" ? "" : type.startsWith("http") ? "string" : type };
}

const baseType = (t: string) => t.split("(")[0]!;
const capitalized = (t: string) => t.charAt(0).toUpperCase() + t.slice(1);
const choiceCache = new Map<string, { base: string; defKey: string; info: ElementInfo; types: string[] }[]>();

/** The choice elements (value[x]) directly under a place. */
function choicesAt(place: Place) {
  const cacheKey = `${place.type}|${place.path}`;
  let found = choiceCache.get(cacheKey);
  if (!found) {
    const prefix = place.path ? `${place.path}.` : "";
    found = Object.entries(defsOf(place.type))
      .filter(([k]) => k.endsWith("[x]") && k.startsWith(prefix) && !k.slice(prefix.length).includes("."))
      .map(([defKey, info]) => ({ base: defKey.slice(prefix.length, -3), defKey, info, types: info[2].split("|").map(baseType) }));
    choiceCache.set(cacheKey, found);
  }
  return found;
}

/** The child named `name` of the element at `place`, or undefined when R4 defines none. */
export function childOf(place: Place, name: string): Child | undefined {
  const defKey = place.path ? `${place.path}.${name}` : name;
  const info = defsOf(place.type)[defKey];
  if (info) {
    if (info[2].includes("|") || defKey.endsWith("[x]")) return undefined;
    return childFrom(place, defKey, info, name, baseType(info[2]));
  }
  for (const choice of choicesAt(place)) {
    if (!name.startsWith(choice.base)) continue;
    const suffix = name.slice(choice.base.length);
    const type = choice.types.find((t) => capitalized(t) === suffix);
    if (type) return childFrom(place, choice.defKey, choice.info, name, type);
  }
  return undefined;
}

/** The element names defined directly under a place, in definition order (choices as value[x]). */
export function childNames(place: Place): string[] {
  const prefix = place.path ? `${place.path}.` : "";
  const names: string[] = [];
  for (const k of Object.keys(defsOf(place.type))) if (k.startsWith(prefix) && !k.slice(prefix.length).includes(".")) names.push(k.slice(prefix.length));
  return names;
}

/** Element.id is an XML attribute everywhere except a resource's own id; Extension.url always is. */
export function isAttribute(place: Place, name: string): boolean {
  if (name === "id") return !(place.path === "" && isResourceType(place.type));
  return name === "url" && place.type === "Extension" && place.path === "";
}

export const FHIR_NS = "http://hl7.org/fhir";
export const XHTML_NS = "http://www.w3.org/1999/xhtml";
