// What the expression editor completes: the field paths of sample data (the upstream node's last
// output, i.e. the node's recorded input), as JSONata writes them (dotted, arrays looked through).
import type { CompletionContext, CompletionResult } from "@codemirror/autocomplete";
export interface FieldPath {
  path: string;
  kind: string;
}

const MAX_DEPTH = 4;
const MAX_PATHS = 300;

const kindOf = (v: unknown) => (v === null ? "null" : Array.isArray(v) ? "array" : typeof v);

export function fieldPaths(sample: unknown, prefix = "", depth = 0, out: FieldPath[] = []): FieldPath[] {
  const value = Array.isArray(sample) ? sample[0] : sample;
  if (depth >= MAX_DEPTH || !value || typeof value !== "object") return out;
  for (const [key, child] of Object.entries(value as Record<string, unknown>)) {
    if (out.length >= MAX_PATHS) break;
    // A key JSONata cannot name bare is written in backquotes.
    const name = /^[A-Za-z_$][\w$]*$/.test(key) ? key : `\`${key}\``;
    const path = prefix ? `${prefix}.${name}` : name;
    out.push({ path, kind: kindOf(child) });
    fieldPaths(child, path, depth + 1, out);
  }
  return out;
}

/** The completion source: the sample's field paths, offered for the word before the cursor. */
export const completeFields =
  (paths: () => FieldPath[]) =>
  (ctx: CompletionContext): CompletionResult | null => {
    const word = ctx.matchBefore(/[A-Za-z_$`][\w.$`]*/);
    if (!word && !ctx.explicit) return null;
    return { from: word?.from ?? ctx.pos, options: paths().map((p) => ({ label: p.path, detail: p.kind, type: "property" })) };
  };
