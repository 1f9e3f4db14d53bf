// `_elements` for export: keeps the named top-level elements plus the mandatory
// ones, and tags the resource SUBSETTED as FHIR requires for partial resources.

const MANDATORY = new Set(["resourceType", "id", "meta"]);
const SUBSETTED = { system: "http://terminology.hl7.org/CodeSystem/v3-ObservationValue", code: "SUBSETTED" };

/** Returns the line unchanged when no elements apply to its type. */
export function subsetLine(line: string, type: string, elements: Record<string, string[]>): string {
  const keep = [...(elements["*"] ?? []), ...(elements[type] ?? [])];
  if (!keep.length) return line;
  const resource = JSON.parse(line) as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(resource)) if (MANDATORY.has(k) || keep.includes(k)) out[k] = v;
  const meta = (out.meta ?? {}) as { tag?: unknown[] };
  out.meta = { ...meta, tag: [...(meta.tag ?? []), SUBSETTED] };
  return JSON.stringify(out);
}
