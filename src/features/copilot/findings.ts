// What the copilot's checks report: a finding names the node it is about (null for the
// pipeline as a whole) and says what is wrong in one sentence.
import type { FieldError } from "../../platform/errors";

export interface Finding {
  node_id: string | null;
  message: string;
  /** Dotted path of the offending field, when one is known. */
  path?: string;
}

export interface ValidationReport {
  valid: boolean;
  errors: Finding[];
  warnings: Finding[];
}

interface RawDefinition {
  nodes?: { id?: unknown }[];
  connections?: { from?: { node?: unknown } }[];
}

/**
 * The node a validator path is about: `nodes.<id>…` (graph checks name the id),
 * `definition.nodes.<index>…` (schema checks name the index) or `connections.<i>…` (the source node).
 */
export function nodeIdOf(path: string, raw: unknown): string | null {
  const def = (raw && typeof raw === "object" ? raw : {}) as RawDefinition;
  const m = /^(?:definition\.)?(nodes|connections)\.([^.]+)/.exec(path);
  if (!m) return null;
  const [, kind, key] = m as unknown as [string, string, string];
  const asIndex = /^\d+$/.test(key) ? Number(key) : undefined;
  if (kind === "connections") {
    const from = asIndex === undefined ? undefined : def.connections?.[asIndex]?.from?.node;
    return typeof from === "string" ? from : null;
  }
  if (path.startsWith("definition.") && asIndex !== undefined) {
    const id = def.nodes?.[asIndex]?.id;
    return typeof id === "string" ? id : null;
  }
  // Node ids may hold dots: the longest id the path starts with.
  const ids = (def.nodes ?? []).map((n) => n.id).filter((id): id is string => typeof id === "string");
  const named = ids.filter((id) => path === `nodes.${id}` || path.startsWith(`nodes.${id}.`)).sort((a, b) => b.length - a.length);
  return named[0] ?? key;
}

export const findingsOf = (details: FieldError[], raw: unknown): Finding[] =>
  details.map((d) => ({ node_id: nodeIdOf(d.path, raw), message: d.message, path: d.path }));
