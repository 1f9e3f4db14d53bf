// SQL text for the scripts' statements (wrangler d1 execute takes no bound parameters).

/** SQL string literal; the only way values reach SQL in these scripts. */
export function lit(value: string | number | null): string {
  if (value === null) return "NULL";
  if (typeof value === "number") return String(value);
  return `'${value.replace(/'/g, "''")}'`;
}
