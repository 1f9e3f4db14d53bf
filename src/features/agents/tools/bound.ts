// Keeps tool results small enough for the model's context and the event stream:
// anything whose JSON exceeds the bound is replaced by a truncated preview.

export const MAX_TOOL_RESULT_CHARS = 16_000;

export function boundResult(result: unknown, maxChars = MAX_TOOL_RESULT_CHARS): unknown {
  const json = JSON.stringify(result ?? null);
  if (json.length <= maxChars) return result ?? null;
  return {
    truncated: true,
    original_chars: json.length,
    preview: json.slice(0, maxChars),
    note: "The result was too large and was cut; narrow the request (e.g. _count, fewer elements) for the rest.",
  };
}
