// Moves one organization's rows from its shard to another, table by table, while its writes are
// paused (write-pause.ts). The steps:
//   1. mark the org moving in the directory (writes answer 503 ORG_MOVING, reads go on);
//   2. wait out the directory caches of every isolate (PLACEMENT_TTL_MS);
//   3. copy every org-owned table (any table with an org_id column but the control ones) in pages;
//   4. verify each table's row count and a checksum of its rows on both sides. Reads still append
//      their AuditEvents to the old copy meanwhile, so rows the copy lacks are caught up by key
//      first; any other difference (a row changed) fails the move;
//   5. switch the directory to the new shard and wait the caches out again (reads move over);
//      catch up and verify once more;
//   6. delete the old copy, clear the mark (writes resume).
// A failure before the switch removes the new copy and clears the mark: the org stays where it
// was. A failure of the check after the switch keeps both copies and the mark (writes stay
// paused) for an operator to look at: nothing is deleted that might be the only copy. R2 keys
// and Durable Object names carry the org id, never the shard, so blobs, export files and
// conversations need no moving. The module knows no feature: it finds tables by schema.
import { ApiError, conflict, notFound } from "./errors";
import { PLACEMENT_TTL_MS, forgetPlacements } from "./directory";
import { controlDatabase, shardDatabase, shardNames } from "./shards";

/** Tables of the control database: they never move. */
const CONTROL_TABLES = new Set(["organizations", "api_keys"]);
const DEFAULT_PAGE_ROWS = 50;

export interface TableCopy {
  table: string;
  rows: number;
  checksum: string;
}

export interface MoveReport {
  orgId: string;
  from: string;
  to: string;
  tables: TableCopy[];
}

export interface MoveOptions {
  /** Waits until every isolate has seen a directory change (default: the cache TTL and a margin). */
  settle?: () => Promise<void>;
  pageRows?: number;
  /** Runs between the copy and its verification (tests use it to change a side). */
  afterCopy?: () => Promise<void>;
  /** Called after each directory change: drops this isolate's caches that carry placements. */
  onDirectoryChange?: () => void;
}

export const verificationFailed = (message: string) => new ApiError(409, "MOVE_VERIFICATION_FAILED", message);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;

interface OrgTable {
  name: string;
  columns: string[];
  /** Columns of its primary key (rowid when it has none): the order pages are read in. */
  order: string[];
}

/** Every table of `db` that holds rows of organizations (an org_id column), but the control ones. */
export async function orgTables(db: D1Database): Promise<OrgTable[]> {
  const { results } = await db
    .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%' AND name NOT LIKE 'd1_%' ORDER BY name")
    .all<{ name: string }>();
  const tables: OrgTable[] = [];
  for (const { name } of results) {
    if (CONTROL_TABLES.has(name)) continue;
    const { results: cols } = await db.prepare("SELECT name, pk FROM pragma_table_info(?1)").bind(name).all<{ name: string; pk: number }>();
    if (!cols.some((c) => c.name === "org_id")) continue;
    const pk = cols.filter((c) => c.pk > 0).sort((a, b) => a.pk - b.pk).map((c) => c.name);
    tables.push({ name, columns: cols.map((c) => c.name), order: pk.length ? pk : ["rowid"] });
  }
  return tables;
}

async function* pages(db: D1Database, table: OrgTable, orgId: string, pageRows: number): AsyncGenerator<Record<string, unknown>[]> {
  const sql = `SELECT ${table.columns.map(quote).join(", ")} FROM ${quote(table.name)} WHERE org_id = ?1 ORDER BY ${table.order.map(quote).join(", ")} LIMIT ?2 OFFSET ?3`;
  for (let offset = 0; ; offset += pageRows) {
    const { results } = await db.prepare(sql).bind(orgId, pageRows, offset).all<Record<string, unknown>>();
    if (results.length) yield results;
    if (results.length < pageRows) return;
  }
}

/** Row count and a SHA-256 chained over the org's rows of `table` in key order. */
async function summarize(db: D1Database, table: OrgTable, orgId: string, pageRows: number): Promise<TableCopy> {
  let rows = 0;
  let checksum = "";
  for await (const page of pages(db, table, orgId, pageRows)) {
    rows += page.length;
    const bytes = new TextEncoder().encode(checksum + JSON.stringify(page.map((r) => table.columns.map((c) => r[c]))));
    checksum = [...new Uint8Array(await crypto.subtle.digest("SHA-256", bytes))].map((b) => b.toString(16).padStart(2, "0")).join("");
  }
  return { table: table.name, rows, checksum };
}

async function copyTable(from: D1Database, to: D1Database, table: OrgTable, orgId: string, pageRows: number): Promise<void> {
  const insert = `INSERT INTO ${quote(table.name)} (${table.columns.map(quote).join(", ")}) VALUES (${table.columns.map((_, i) => `?${i + 1}`).join(", ")})`;
  for await (const page of pages(from, table, orgId, pageRows)) {
    await to.batch(page.map((row) => to.prepare(insert).bind(...table.columns.map((c) => row[c] ?? null))));
  }
}

/** Copies the rows of `from` that `to` lacks, by primary key (rows appended since the copy). */
async function catchUp(from: D1Database, to: D1Database, table: OrgTable, orgId: string): Promise<number> {
  if (table.order[0] === "rowid") return 0;
  const keysSql = `SELECT ${table.order.map(quote).join(", ")} FROM ${quote(table.name)} WHERE org_id = ?1`;
  const keysOf = async (db: D1Database) => (await db.prepare(keysSql).bind(orgId).raw()) as unknown[][];
  const have = new Set((await keysOf(to)).map((k) => JSON.stringify(k)));
  const missing = (await keysOf(from)).filter((k) => !have.has(JSON.stringify(k)));
  const where = table.order.map((c, i) => `${quote(c)} = ?${i + 2}`).join(" AND ");
  const select = `SELECT ${table.columns.map(quote).join(", ")} FROM ${quote(table.name)} WHERE org_id = ?1 AND ${where}`;
  const insert = `INSERT INTO ${quote(table.name)} (${table.columns.map(quote).join(", ")}) VALUES (${table.columns.map((_, i) => `?${i + 1}`).join(", ")})`;
  for (const key of missing) {
    const row = await from.prepare(select).bind(orgId, ...key).first<Record<string, unknown>>();
    if (row) await to.prepare(insert).bind(...table.columns.map((c) => row[c] ?? null)).run();
  }
  return missing.length;
}

/** Every table equal on both sides (after catching appended rows up), or a verification error naming the first that is not. */
async function verify(from: D1Database, to: D1Database, tables: OrgTable[], orgId: string, pageRows: number, fromName: string): Promise<TableCopy[]> {
  const report: TableCopy[] = [];
  for (const table of tables) {
    const both = () => Promise.all([summarize(from, table, orgId, pageRows), summarize(to, table, orgId, pageRows)]);
    let [source, copy] = await both();
    if (source.checksum !== copy.checksum && (await catchUp(from, to, table, orgId)) > 0) [source, copy] = await both();
    if (source.rows !== copy.rows || source.checksum !== copy.checksum) {
      throw verificationFailed(`${table.name}: ${source.rows} rows on ${fromName}, ${copy.rows} in the copy, checksums ${source.checksum === copy.checksum ? "equal" : "differ"}`);
    }
    report.push(source);
  }
  return report;
}

async function deleteOrgRows(db: D1Database, tables: OrgTable[], orgId: string): Promise<void> {
  if (tables.length) await db.batch(tables.map((t) => db.prepare(`DELETE FROM ${quote(t.name)} WHERE org_id = ?1`).bind(orgId)));
}


export async function moveOrganization(env: { DB: D1Database }, orgId: string, target: string, opts: MoveOptions = {}): Promise<MoveReport> {
  const control = controlDatabase(env);
  const settle = opts.settle ?? (() => sleep(PLACEMENT_TTL_MS + 1_000));
  const pageRows = opts.pageRows ?? DEFAULT_PAGE_ROWS;
  if (!shardNames(env).includes(target)) throw notFound(`No shard ${target}; DATA_SHARDS lists ${shardNames(env).join(", ")}`, "SHARD_NOT_FOUND");
  const org = await control.prepare("SELECT shard, moving_to FROM organizations WHERE id = ?1").bind(orgId).first<{ shard: string; moving_to: string | null }>();
  if (!org) throw notFound(`Organization ${orgId} not found`, "ORGANIZATION_NOT_FOUND");
  if (org.moving_to !== null) throw conflict(`Organization ${orgId} is already being moved to ${org.moving_to}`, "ORG_MOVING");
  if (org.shard === target) throw conflict(`Organization ${orgId} is already on ${target}`, "ALREADY_ON_SHARD");
  const from = shardDatabase(env, org.shard);
  const to = shardDatabase(env, target);

  const setDirectory = async (sql: string, ...params: string[]) => {
    const { meta } = await control.prepare(sql).bind(orgId, ...params).run();
    forgetPlacements();
    opts.onDirectoryChange?.();
    return meta.changes;
  };

  const marked = await setDirectory("UPDATE organizations SET moving_to = ?2 WHERE id = ?1 AND moving_to IS NULL", target);
  if (!marked) throw conflict(`Organization ${orgId} is already being moved`, "ORG_MOVING");
  const tables = await orgTables(from);
  let report: TableCopy[];
  try {
    await settle();
    // Leftovers of an earlier failed attempt would double rows.
    await deleteOrgRows(to, tables, orgId);
    for (const table of tables) await copyTable(from, to, table, orgId, pageRows);
    await opts.afterCopy?.();
    report = await verify(from, to, tables, orgId, pageRows, org.shard);
  } catch (err) {
    await deleteOrgRows(to, tables, orgId);
    await setDirectory("UPDATE organizations SET moving_to = NULL WHERE id = ?1");
    throw err;
  }
  // Reads follow the directory once every isolate has seen the switch; writes stay paused until the old copy is gone.
  await setDirectory("UPDATE organizations SET shard = ?2 WHERE id = ?1", target);
  await settle();
  report = await verify(from, to, tables, orgId, pageRows, org.shard);
  await deleteOrgRows(from, tables, orgId);
  await setDirectory("UPDATE organizations SET moving_to = NULL WHERE id = ?1");
  return { orgId, from: org.shard, to: target, tables: report };
}
