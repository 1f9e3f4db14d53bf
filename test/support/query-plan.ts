// Reads SQLite's EXPLAIN QUERY PLAN lines for the FHIR store's tables: which ones reach rows
// without an index the tenant leads. Index tables (fhir_idx_*, fhir_compartment) must be sought on
// at least three leading columns (org, type and the parameter code, owner or target); the
// resources table on two (org and type, or org and _lastUpdated), or by rowid; only the system-level
// walk reads the org's _lastUpdated order on the org alone (in order, a bounded window: walk.ts).

/** Leading columns an index seek must fix, by the index's name. */
function minimumSeek(index: string): number {
  if (/^(fhir_idx_|fhir_compartment|sqlite_autoindex_fhir_compartment)/.test(index)) return 3;
  if (index === "fhir_resources_updated_idx") return 1;
  if (/^(fhir_resources_|sqlite_autoindex_fhir_resources)/.test(index)) return 2;
  return 1;
}

/** The plan lines that read rows of an unbounded set: a scan, an automatic index, a short seek. */
export function planViolations(plan: string[]): string[] {
  // Subqueries SQLite runs as co-routines or materializes: scanning their rows scans no table.
  const derived = new Set(plan.map((l) => /^(?:CO-ROUTINE|MATERIALIZE) (\S+)/.exec(l)?.[1]).filter(Boolean));
  return plan.filter((line) => {
    const scan = /^SCAN (\S+)/.exec(line);
    if (scan) return !(derived.has(scan[1]) || scan[1] === "json_each" || scan[1] === "CONSTANT");
    if (!line.startsWith("SEARCH ")) return false;
    if (/AUTOMATIC/.test(line)) return true;
    if (/USING INTEGER PRIMARY KEY \(rowid=\?\)/.test(line) || /^SEARCH json_each /.test(line)) return false;
    const seek = /USING (?:COVERING )?INDEX (\S+) \(([^)]*)\)/.exec(line);
    if (!seek) return true;
    const columns = seek[2]!.split(" AND ");
    return !columns[0]!.startsWith("org_id=") || columns.length < minimumSeek(seek[1]!);
  });
}
