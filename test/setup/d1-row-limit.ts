// Production D1 refuses a row (or any value) over 2,000,000 bytes with SQLITE_TOOBIG; the local
// simulator does not. Triggers on every table give tests the production behaviour, so a
// client-sized value written to one row fails here as it would there.
export const D1_MAX_ROW_BYTES = 2_000_000;

/** Over SQLite's own length limit: zeroblob() fails with the real SQLITE_TOOBIG, as D1 would, without allocating. */
const TOO_BIG = 2 ** 31 - 1;

const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;

export async function enforceD1RowLimit(db: D1Database): Promise<void> {
  const { results: tables } = await db
    .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%' AND name NOT LIKE 'd1_%'")
    .all<{ name: string }>();
  const statements: D1PreparedStatement[] = [];
  for (const { name } of tables) {
    const { results: columns } = await db.prepare("SELECT name FROM pragma_table_info(?1)").bind(name).all<{ name: string }>();
    const size = columns.map((c) => `IFNULL(length(CAST(NEW.${quote(c.name)} AS BLOB)), 0)`).join(" + ");
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
