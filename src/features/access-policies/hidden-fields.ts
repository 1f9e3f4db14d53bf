// Field hiding (pure): a resource as a principal may see it (the fields its access policy hides
// removed, a copy, the resource itself when nothing is hidden), and the version a write stores
// (the fields it may not see or change kept as stored). A path goes through single elements
// (`code.text`; its last element may repeat: `telecom`), so what is kept has one place to go.
import { type ElementStep, propertiesOf } from "../fhir";

export interface FieldPath {
  /** The resource type it applies to; "*": every type its rule covers. */
  type: string;
  /** As the policy names it (`Patient.telecom`, `telecom`). */
  text: string;
  steps: ElementStep[];
}

type Node = Record<string, unknown>;
const isNode = (v: unknown): v is Node => typeof v === "object" && v !== null && !Array.isArray(v);

/** `resource` without the elements `paths` name (a copy of what changes; `resource` itself when none is present). */
export function hideFields<R extends Node>(resource: R, paths: readonly FieldPath[]): R {
  let out: Node = resource;
  for (const path of paths) out = without(out, path.steps, 0);
  return out as R;
}

function without(node: Node, steps: readonly ElementStep[], i: number): Node {
  const step = steps[i]!;
  const keys = propertiesOf(node, step);
  if (!keys.length) return node;
  const out: Node = { ...node };
  if (i === steps.length - 1) {
    for (const k of keys) delete out[k];
    return out;
  }
  for (const k of keys) {
    const v = out[k];
    if (isNode(v)) out[k] = without(v, steps, i + 1);
    else if (Array.isArray(v)) out[k] = v.map((item) => (isNode(item) ? without(item, steps, i + 1) : item));
  }
  return out;
}

/**
 * `written` with the elements `paths` name as `current` has them (absent there: absent here).
 * `current` undefined (a create): the elements are removed.
 */
export function keepFields<R extends Node>(written: R, current: Node | undefined, paths: readonly FieldPath[]): R {
  let out: Node = written;
  for (const path of paths) out = kept(out, current, path.steps, 0);
  return out as R;
}

function kept(written: Node, current: Node | undefined, steps: readonly ElementStep[], i: number): Node {
  const step = steps[i]!;
  const out: Node = { ...written };
  if (i === steps.length - 1) {
    for (const k of propertiesOf(out, step)) delete out[k];
    if (current) for (const k of propertiesOf(current, step)) out[k] = structuredClone(current[k]);
    return out;
  }
  // Intermediate steps are single, non-choice elements (validate.ts).
  const inner = isNode(out[step.name]) ? (out[step.name] as Node) : undefined;
  const was = current && isNode(current[step.name]) ? (current[step.name] as Node) : undefined;
  if (!inner && !was) return out;
  const next = kept(inner ?? {}, was, steps, i + 1);
  if (Object.keys(next).length) out[step.name] = next;
  else delete out[step.name];
  return out;
}

/**
 * Whether a search parameter's FHIRPath expression reads what `path` names on `type`: it names the
 * element, something inside it, or (for a choice element named by one type, `valueQuantity`) the
 * choice itself. Base elements (`meta`, `text`) are also read as `Resource.` and `DomainResource.`.
 */
export function expressionReads(expression: string, type: string, path: FieldPath): boolean {
  const hidden = path.steps.map((s) => s.name);
  const roots = [type, "Resource", "DomainResource"].map((t) => t.replace(/[^A-Za-z]/g, ""));
  const pattern = new RegExp(`(?:^|[^A-Za-z0-9_.])(?:${roots.join("|")})\\.([A-Za-z0-9_.]+)`, "g");
  for (const m of expression.matchAll(pattern)) {
    const read = m[1]!.split(".").filter(Boolean);
    if (hidden.every((h, i) => read[i] !== undefined && (read[i] === h || (i === hidden.length - 1 && h.startsWith(read[i]!) && /^[A-Z]/.test(h.charAt(read[i]!.length)))))) return true;
  }
  return false;
}
