// `_elements` for export: keeps the named top-level elements plus the mandatory
// ones, and tags the resource SUBSETTED as FHIR requires for partial resources.

const MANDATORY = new Set(["resourceType", "id", "meta"]);
const SUBSETTED = { system: "http://terminology.hl7.org/CodeSystem/v3-ObservationValue", code: "SUBSETTED" };

/** A page's NDJSON with each resource subsetted; unchanged when no elements apply to its type. */
export function subsetNdjson(page: { ndjson: string; count: number }, type: string, elements: Record<string, string[]>): string {
  const keep = [...(elements["*"] ?? []), ...(elements[type] ?? [])];
  if (!keep.length || !page.count) return page.ndjson;
  return page.ndjson
    .split("\n")
    .map((line) => subsetLine(line, keep))
    .join("\n");
}

function subsetLine(line: string, keep: string[]): string {
  const resource = JSON.parse(line) as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(resource)) if (MANDATORY.has(k) || keep.includes(k)) out[k] = v;
  const meta = (out.meta ?? {}) as { tag?: unknown[] };
  out.meta = { ...meta, tag: [...(meta.tag ?? []), SUBSETTED] };
  return JSON.stringify(out);
}
