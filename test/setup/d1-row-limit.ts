// Production D1 refuses a row (or any value) over 2,000,000 bytes with SQLITE_TOOBIG; the local
// simulator does not. Triggers on every table give tests the production behaviour, so a
// client-sized value written to one row fails here as it would there.
export const D1_MAX_ROW_BYTES = 2_000_000;

/** Over SQLite's own length limit: zeroblob() fails with the real SQLITE_TOOBIG, as D1 would, without allocating. */
const TOO_BIG = 2 ** 31 - 1;

const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;

export async function enforceD1RowLimit(db: D1Database): Promise<void> {
  // Every table's columns in one query (a query per table made this most of a file's setup).
  const { results } = await db
    .prepare(
      `SELECT m.name AS tbl, p.name AS col FROM sqlite_master m, pragma_table_info(m.name) p
       WHERE m.type = 'table' AND m.name NOT LIKE 'sqlite_%' AND m.name NOT LIKE '_cf_%' AND m.name NOT LIKE 'd1_%' ORDER BY m.name, p.cid`,
    )
    .all<{ tbl: string; col: string }>();
  const columns = new Map<string, string[]>();
  for (const { tbl, col } of results) columns.set(tbl, [...(columns.get(tbl) ?? []), col]);
  const statements: D1PreparedStatement[] = [];
  for (const [name, cols] of columns) {
    const size = cols.map((c) => `IFNULL(length(CAST(NEW.${quote(c)} AS BLOB)), 0)`).join(" + ");
    for (const event of ["INSERT", "UPDATE"]) {
      statements.push(
        db.prepare(
          `CREATE TRIGGER IF NOT EXISTS ${quote(`d1_row_limit_${event.toLowerCase()}_${name}`)} BEFORE ${event} ON ${quote(name)}
           WHEN ${size} > ${D1_MAX_ROW_BYTES} BEGIN SELECT zeroblob(${TOO_BIG}); END`,
        ),
      );
    }
  }
  if (statements.length) await db.batch(statements);
}
