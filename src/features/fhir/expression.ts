// Splits a FHIRPath expression on a top-level separator (outside parentheses and quotes), as
// needed to take the union members of search-parameter expressions apart. Dependency-free so
// the definitions generator can use it too.
export function splitTop(expr: string, sep: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let quote = false;
  let start = 0;
  for (let i = 0; i < expr.length; i++) {
    const ch = expr[i];
    if (ch === "'") quote = !quote;
    if (quote) continue;
    if (ch === "(") depth++;
    else if (ch === ")") depth--;
    else if (depth === 0 && expr.startsWith(sep, i)) {
      out.push(expr.slice(start, i).trim());
      start = i + sep.length;
    }
  }
  out.push(expr.slice(start).trim());
  return out;
}
