// Element paths of a resource type (`telecom`, `value`, `code.text`, `contact.telecom`) resolved
// against R4's definitions (the compact index validation reads): what an access policy hides from
// a principal or keeps read-only. A choice element is named without its type (`value` stands for
// valueQuantity, valueString...), or by one concrete name (`valueQuantity`).
import { lookupTable } from "../../platform/object-keys";
import { isResourceType } from "./definitions";
import { ELEMENTS } from "./summary";

export interface ElementStep {
  /** The property name, or a choice element's name without its type. */
  name: string;
  /** A choice element (`value[x]`): every `name<Type>` property, and its `_name<Type>` extension. */
  choice: boolean;
  /** Whether the element repeats (an array in JSON). */
  repeats: boolean;
}

/** Structures whose elements are their own children in the same structure (`contact.telecom`). */
const INLINE = new Set(["BackboneElement", "Element"]);

const upperFirst = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/**
 * The steps of `path` (dot-separated, relative to a resource of `type`; `*` for any type, whose
 * paths are resolved on DomainResource), or why it names no element.
 */
export function resolveElementPath(type: string, path: string): ElementStep[] | { issue: string } {
  const base = type === "*" ? "DomainResource" : type;
  if (type !== "*" && !isResourceType(type)) return { issue: `${type} is not a resource type` };
  const segments = path.split(".");
  if (!path || segments.some((s) => !/^[A-Za-z][A-Za-z0-9]*$/.test(s))) return { issue: `"${path}" is not an element path (names separated by dots)` };
  let structure = base;
  let prefix = "";
  const steps: ElementStep[] = [];
  for (const [i, segment] of segments.entries()) {
    const elements = lookupTable(ELEMENTS[structure] ?? {});
    const at = prefix ? `${prefix}.${segment}` : segment;
    let info = elements[at];
    let choice = false;
    let typed = false;
    if (!info && elements[`${at}[x]`]) {
      info = elements[`${at}[x]`];
      choice = true;
    }
    if (!info) {
      // A concrete choice (valueQuantity): its element and the type it names.
      const concrete = Object.keys(elements).find((k) => k.endsWith("[x]") && k.startsWith(prefix ? `${prefix}.` : "") && concreteOf(k.slice(prefix ? prefix.length + 1 : 0, -3), segment, elements[k]![2]));
      if (concrete) {
        info = elements[concrete];
        typed = true;
      }
    }
    if (!info) return { issue: `${[type === "*" ? "A resource" : type, ...segments.slice(0, i)].join(".")} has no element ${segment}` };
    const repeats = info[1] !== 1;
    steps.push({ name: segment, choice, repeats });
    if (i === segments.length - 1) break;
    if (choice || typed) return { issue: `${at} is a choice element: a path ends there` };
    const elementType = info[2].split("(")[0]!;
    if (INLINE.has(elementType)) prefix = at;
    else if (ELEMENTS[elementType] && /^[A-Z]/.test(elementType)) {
      structure = elementType;
      prefix = "";
    } else return { issue: `${at} is a ${elementType}, which has no elements` };
  }
  return steps;
}

/** Whether `key` (valueQuantity) is one concrete property of the choice element `name` (value) allowing `types`. */
function concreteOf(name: string, key: string, types: string): boolean {
  if (!key.startsWith(name) || key.length === name.length) return false;
  return types.split("|").some((t) => upperFirst(t.split("(")[0]!) === key.slice(name.length));
}

/** The properties of an object that one step names: the element and its primitive extension (`_birthDate`). */
export function propertiesOf(node: Record<string, unknown>, step: ElementStep): string[] {
  if (!step.choice) return [step.name, `_${step.name}`].filter((k) => Object.hasOwn(node, k));
  return Object.keys(node).filter((k) => {
    const bare = k.startsWith("_") ? k.slice(1) : k;
    return bare.length > step.name.length && bare.startsWith(step.name) && /^[A-Z]/.test(bare.charAt(step.name.length));
  });
}
