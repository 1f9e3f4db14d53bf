// Moves one organization's rows from its shard to another, table by table, while its writes are
// paused (write-pause.ts). The move is a job of small steps (`beginMove`, then `stepMove` until it
// ends) whose whole state is a plain JSON value, so a Durable Object can run it from alarms, keep
// it in storage between steps and pick it up again after an eviction (features/operations/
// org-mover.ts); `moveOrganization` runs the same steps in one call. The phases:
//   1. mark the org moving in the directory (writes answer 503 ORG_MOVING, reads go on);
//   2. wait out the directory caches of every isolate (PLACEMENT_TTL_MS): "waiting-before-copy";
//   3. copy every org-owned table (any table with an org_id column but the control ones) in pages:
//      "copying". Each page is one D1 batch, and a step resumes from the rows the copy holds, so a
//      step cut short (an eviction between a page and the saved state) neither loses nor doubles rows.
//      A table keyed by the database's own row number (an INTEGER PRIMARY KEY: inbound_messages.seq)
//      is copied in that order without it, so the new shard numbers the rows after its own and
//      never collides with another organization's; such a table is matched row for row by a unique
//      key of its own (org_id, id) instead;
//   4. verify each table's row count and a checksum of its rows on both sides: "verifying". Reads
//      still append their AuditEvents to the old copy meanwhile, so rows the copy lacks are caught
//      up by key first; any other difference (a row changed) abandons the move;
//   5. switch the directory to the new shard and wait the caches out again (reads move over):
//      "waiting-after-switch"; catch up and verify once more: "verifying-after-switch";
//   6. delete the old copy, clear the mark (writes resume): "done".
// A failure before the switch removes the new copy and clears the mark ("abandoned"): the org
// stays where it was. A failure after the switch keeps both copies and the mark (writes stay
// paused) for an operator to look at ("stuck"): nothing is deleted that might be the only copy.
// R2 keys and Durable Object names carry the org id, never the shard, so blobs, export files and
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
  /** The columns copied (a row number the shard assigns is not: the new shard assigns its own). */
  columns: string[];
  /** Columns of its primary key (rowid when it has none): the order pages are read in. */
  order: string[];
  /**
   * Columns that identify a row on both shards, for catching up rows appended since the copy: the
   * primary key, or for a table keyed by a row number a unique index of its own. Absent: none (a
   * job saved before this field existed falls back to `order`).
   */
  key?: string[];
}

/** Every table of `db` that holds rows of organizations (an org_id column), but the control ones. */
export async function orgTables(db: D1Database): Promise<OrgTable[]> {
  const { results } = await db
    .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%' AND name NOT LIKE 'd1_%' ORDER BY name")
    .all<{ name: string }>();
  const tables: OrgTable[] = [];
  for (const { name } of results) {
    if (CONTROL_TABLES.has(name)) continue;
    const { results: cols } = await db.prepare("SELECT name, type, pk, \"notnull\" FROM pragma_table_info(?1)").bind(name).all<{ name: string; type: string; pk: number; notnull: number }>();
    if (!cols.some((c) => c.name === "org_id")) continue;
    const pk = cols.filter((c) => c.pk > 0).sort((a, b) => a.pk - b.pk).map((c) => c.name);
    const rowNumber = pk.length === 1 && cols.find((c) => c.name === pk[0])?.type.toUpperCase() === "INTEGER" ? pk[0] : undefined;
    if (!rowNumber) {
      tables.push({ name, columns: cols.map((c) => c.name), order: pk.length ? pk : ["rowid"], key: pk });
      continue;
    }
    tables.push({ name, columns: cols.filter((c) => c.name !== rowNumber).map((c) => c.name), order: [rowNumber], key: await uniqueKey(db, name, cols) });
  }
  return tables;
}

/** The columns of a unique index of `table` whose columns are all NOT NULL (a row's identity across shards), if it has one. */
async function uniqueKey(db: D1Database, table: string, cols: readonly { name: string; notnull: number }[]): Promise<string[]> {
  const { results: indexes } = await db.prepare("SELECT name FROM pragma_index_list(?1) WHERE \"unique\" = 1 ORDER BY name").bind(table).all<{ name: string }>();
  for (const { name } of indexes) {
    const { results } = await db.prepare("SELECT name FROM pragma_index_info(?1) ORDER BY seqno").bind(name).all<{ name: string }>();
    const columns = results.map((r) => r.name);
    if (columns.length && columns.every((c) => cols.some((col) => col.name === c && col.notnull === 1))) return columns;
  }
  return [];
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

const insertSql = (table: OrgTable) =>
  `INSERT INTO ${quote(table.name)} (${table.columns.map(quote).join(", ")}) VALUES (${table.columns.map((_, i) => `?${i + 1}`).join(", ")})`;

/** Copies the rows of `from` that `to` lacks, by the table's key, in its order (rows appended since the copy). */
async function catchUp(from: D1Database, to: D1Database, table: OrgTable, orgId: string): Promise<number> {
  const key = table.key ?? table.order;
  if (!key.length || key[0] === "rowid") return 0;
  const keysSql = `SELECT ${key.map(quote).join(", ")} FROM ${quote(table.name)} WHERE org_id = ?1 ORDER BY ${table.order.map(quote).join(", ")}`;
  const keysOf = async (db: D1Database) => (await db.prepare(keysSql).bind(orgId).raw()) as unknown[][];
  const have = new Set((await keysOf(to)).map((k) => JSON.stringify(k)));
  const missing = (await keysOf(from)).filter((k) => !have.has(JSON.stringify(k)));
  const where = key.map((c, i) => `${quote(c)} = ?${i + 2}`).join(" AND ");
  const select = `SELECT ${table.columns.map(quote).join(", ")} FROM ${quote(table.name)} WHERE org_id = ?1 AND ${where}`;
  const insert = insertSql(table);
  for (const key of missing) {
    const row = await from.prepare(select).bind(orgId, ...key).first<Record<string, unknown>>();
    if (row) await to.prepare(insert).bind(...table.columns.map((c) => row[c] ?? null)).run();
  }
  return missing.length;
}

/** The table equal on both sides (after catching appended rows up), or a verification error naming it. */
async function verifyTable(from: D1Database, to: D1Database, table: OrgTable, orgId: string, pageRows: number, fromName: string): Promise<TableCopy> {
  const both = () => Promise.all([summarize(from, table, orgId, pageRows), summarize(to, table, orgId, pageRows)]);
  let [source, copy] = await both();
  if (source.checksum !== copy.checksum && (await catchUp(from, to, table, orgId)) > 0) [source, copy] = await both();
  if (source.rows !== copy.rows || source.checksum !== copy.checksum) {
    throw verificationFailed(`${table.name}: ${source.rows} rows on ${fromName}, ${copy.rows} in the copy, checksums ${source.checksum === copy.checksum ? "equal" : "differ"}`);
  }
  return source;
}

async function deleteOrgRows(db: D1Database, tables: OrgTable[], orgId: string): Promise<void> {
  if (tables.length) await db.batch(tables.map((t) => db.prepare(`DELETE FROM ${quote(t.name)} WHERE org_id = ?1`).bind(orgId)));
}

async function copiedRows(db: D1Database, table: OrgTable, orgId: string): Promise<number> {
  return (await db.prepare(`SELECT COUNT(*) AS n FROM ${quote(table.name)} WHERE org_id = ?1`).bind(orgId).first<{ n: number }>())?.n ?? 0;
}

/** Copies at most `maxPages` pages of `table` from where the copy stands; true when the table is done. */
async function copyPages(from: D1Database, to: D1Database, table: OrgTable, orgId: string, pageRows: number, maxPages: number): Promise<{ done: boolean; rows: number }> {
  const insert = insertSql(table);
  const select = `SELECT ${table.columns.map(quote).join(", ")} FROM ${quote(table.name)} WHERE org_id = ?1 ORDER BY ${table.order.map(quote).join(", ")} LIMIT ?2 OFFSET ?3`;
  // The copy itself says how far it got: each page is one batch, so its row count is a page boundary.
  let offset = await copiedRows(to, table, orgId);
  let rows = 0;
  for (let page = 0; page < maxPages; page++) {
    const { results } = await from.prepare(select).bind(orgId, pageRows, offset).all<Record<string, unknown>>();
    if (results.length) await to.batch(results.map((row) => to.prepare(insert).bind(...table.columns.map((c) => row[c] ?? null))));
    offset += results.length;
    rows += results.length;
    if (results.length < pageRows) return { done: true, rows };
  }
  return { done: false, rows };
}

export type MovePhase = "waiting-before-copy" | "copying" | "verifying" | "waiting-after-switch" | "verifying-after-switch" | "done" | "abandoned" | "stuck";

/** A move's whole state: what a Durable Object keeps between steps. */
export interface MoveJob {
  id: string;
  orgId: string;
  from: string;
  to: string;
  phase: MovePhase;
  /** Epoch ms before which the next step has nothing to do (the directory caches are being waited out). */
  notBefore: number;
  /** How long a wait for the directory caches lasts. */
  settleMs: number;
  /** The org-owned tables, in the order they are copied and verified. */
  tables: OrgTable[];
  /** Index into `tables` of the table being copied or verified. */
  table: number;
  /** Rows copied so far, all tables. */
  copiedRows: number;
  /** The verified tables of the current verification pass. */
  verified: TableCopy[];
  error?: { code: string; message: string };
  startedAt: string;
  updatedAt: string;
}

export const isFinished = (job: MoveJob) => job.phase === "done" || job.phase === "abandoned" || job.phase === "stuck";

export interface StepOptions {
  pageRows?: number;
  /** Pages copied in one step (a Durable Object alarm does one step). */
  pagesPerStep?: number;
  /** Called after each directory change: drops this isolate's caches that carry placements. */
  onDirectoryChange?: () => void;
  now?: () => number;
}

async function setDirectory(env: { DB: D1Database }, opts: StepOptions, sql: string, ...params: string[]): Promise<number> {
  const { meta } = await controlDatabase(env).prepare(sql).bind(...params).run();
  forgetPlacements();
  opts.onDirectoryChange?.();
  return meta.changes;
}

/** Checks the move, marks the org moving (its writes pause) and answers the job, waiting out the caches. */
export async function beginMove(env: { DB: D1Database }, orgId: string, target: string, settleMs: number, opts: StepOptions = {}): Promise<MoveJob> {
  const now = opts.now ?? Date.now;
  if (!shardNames(env).includes(target)) throw notFound(`No shard ${target}; DATA_SHARDS lists ${shardNames(env).join(", ")}`, "SHARD_NOT_FOUND");
  const org = await controlDatabase(env).prepare("SELECT shard, moving_to FROM organizations WHERE id = ?1").bind(orgId).first<{ shard: string; moving_to: string | null }>();
  if (!org) throw notFound(`Organization ${orgId} not found`, "ORGANIZATION_NOT_FOUND");
  if (org.moving_to !== null) throw conflict(`Organization ${orgId} is already being moved to ${org.moving_to}`, "ORG_MOVING");
  if (org.shard === target) throw conflict(`Organization ${orgId} is already on ${target}`, "ALREADY_ON_SHARD");
  const tables = await orgTables(shardDatabase(env, org.shard));
  const marked = await setDirectory(env, opts, "UPDATE organizations SET moving_to = ?2 WHERE id = ?1 AND moving_to IS NULL", orgId, target);
  if (!marked) throw conflict(`Organization ${orgId} is already being moved`, "ORG_MOVING");
  const at = new Date(now()).toISOString();
  return { id: crypto.randomUUID(), orgId, from: org.shard, to: target, phase: "waiting-before-copy", notBefore: now() + settleMs, settleMs, tables, table: 0, copiedRows: 0, verified: [], startedAt: at, updatedAt: at };
}

/**
 * Runs one step of `job` and answers its next state (the input is not changed). A step waits
 * (returns at once before `notBefore`), copies a few pages, verifies one table, or switches or
 * finishes; a failure ends the job abandoned (before the switch) or stuck (after it).
 */
export async function stepMove(env: { DB: D1Database }, current: MoveJob, opts: StepOptions = {}): Promise<MoveJob> {
  const now = opts.now ?? Date.now;
  if (isFinished(current) || now() < current.notBefore) return current;
  const job: MoveJob = { ...current, verified: [...current.verified] };
  const from = shardDatabase(env, job.from);
  const to = shardDatabase(env, job.to);
  const pageRows = opts.pageRows ?? DEFAULT_PAGE_ROWS;
  const next = (patch: Partial<MoveJob>): MoveJob => ({ ...job, ...patch, updatedAt: new Date(now()).toISOString() });
  try {
    switch (job.phase) {
      case "waiting-before-copy":
        // Leftovers of an earlier failed attempt would double rows.
        await deleteOrgRows(to, job.tables, job.orgId);
        return next({ phase: "copying", table: 0 });
      case "copying": {
        const table = job.tables[job.table];
        if (!table) return next({ phase: "verifying", table: 0, verified: [] });
        const { done, rows } = await copyPages(from, to, table, job.orgId, pageRows, opts.pagesPerStep ?? Number.POSITIVE_INFINITY);
        return next({ copiedRows: job.copiedRows + rows, table: done ? job.table + 1 : job.table });
      }
      case "verifying":
      case "verifying-after-switch": {
        const table = job.tables[job.table];
        if (table) return next({ table: job.table + 1, verified: [...job.verified, await verifyTable(from, to, table, job.orgId, pageRows, job.from)] });
        if (job.phase === "verifying") {
          // Reads follow the directory once every isolate has seen the switch; writes stay paused until the old copy is gone.
          await setDirectory(env, opts, "UPDATE organizations SET shard = ?2 WHERE id = ?1", job.orgId, job.to);
          return next({ phase: "waiting-after-switch", notBefore: now() + job.settleMs });
        }
        await deleteOrgRows(from, job.tables, job.orgId);
        await setDirectory(env, opts, "UPDATE organizations SET moving_to = NULL WHERE id = ?1", job.orgId);
        return next({ phase: "done" });
      }
      case "waiting-after-switch":
        return next({ phase: "verifying-after-switch", table: 0, verified: [] });
    }
  } catch (err) {
    const error = err instanceof ApiError ? { code: err.code, message: err.message } : { code: "MOVE_FAILED", message: (err as Error).message };
    if (job.phase === "waiting-after-switch" || job.phase === "verifying-after-switch") return next({ phase: "stuck", error });
    await deleteOrgRows(to, job.tables, job.orgId);
    await setDirectory(env, opts, "UPDATE organizations SET moving_to = NULL WHERE id = ?1", job.orgId);
    return next({ phase: "abandoned", error });
  }
  return job;
}

/** The job's report once done: what was copied and verified. */
export const moveReport = (job: MoveJob): MoveReport => ({ orgId: job.orgId, from: job.from, to: job.to, tables: job.verified });

/** Runs a whole move in this call (`settle` waits the caches out): the report, or the error that ended it. */
export async function moveOrganization(env: { DB: D1Database }, orgId: string, target: string, opts: MoveOptions = {}): Promise<MoveReport> {
  const settle = opts.settle ?? (() => sleep(PLACEMENT_TTL_MS + 1_000));
  const step: StepOptions = { pageRows: opts.pageRows, onDirectoryChange: opts.onDirectoryChange };
  let job = await beginMove(env, orgId, target, 0, step);
  while (!isFinished(job)) {
    if (job.phase === "waiting-before-copy" || job.phase === "waiting-after-switch") await settle();
    const before = job.phase;
    job = await stepMove(env, job, step);
    if (before === "copying" && job.phase === "verifying") await opts.afterCopy?.();
  }
  if (job.phase === "done") return moveReport(job);
  throw job.error?.code === "MOVE_VERIFICATION_FAILED" ? verificationFailed(job.error.message) : new ApiError(500, job.error?.code ?? "MOVE_FAILED", job.error?.message ?? "The move failed");
}
