// The D1 index of the files nodes keep in R2: one row per file, written when a node stores
// it, so the files API pages them by pipeline or execution. The bytes stay in R2.
import { and, count, desc, eq, lt, type SQL } from "drizzle-orm";
import type { Database } from "../../platform/db/client";
import { type StoredFileRow, storedFiles } from "./tables";

/** Who stored a file: the pipeline (from its principal), the execution and the node. */
export interface FileOrigin {
  pipelineId?: string;
  executionId?: string;
  nodeId?: string;
}

export interface FileFilter {
  pipelineId?: string;
  executionId?: string;
  /** Only files stored before this instant (ISO 8601). */
  before?: string;
}

export class FileIndex {
  constructor(private readonly db: Database) {}

  /** Records a stored file; storing under the same key again replaces the row (as R2 replaces the object). */
  async record(orgId: string, file: { key: string; bytes: number; contentType: string }, origin: FileOrigin): Promise<void> {
    const row: StoredFileRow = {
      orgId,
      key: file.key,
      id: crypto.randomUUID(),
      bytes: file.bytes,
      contentType: file.contentType,
      pipelineId: origin.pipelineId ?? null,
      executionId: origin.executionId ?? null,
      nodeId: origin.nodeId ?? null,
      createdAt: new Date().toISOString(),
    };
    // Stored again under the same key: the same file (same id), new content.
    const { orgId: _o, key: _k, id: _i, ...rest } = row;
    await this.db.insert(storedFiles).values(row).onConflictDoUpdate({ target: [storedFiles.orgId, storedFiles.key], set: rest });
  }

  async get(orgId: string, id: string): Promise<StoredFileRow | undefined> {
    const [row] = await this.db.select().from(storedFiles).where(and(eq(storedFiles.orgId, orgId), eq(storedFiles.id, id))).limit(1);
    return row;
  }

  async byKey(orgId: string, key: string): Promise<StoredFileRow | undefined> {
    const [row] = await this.db.select().from(storedFiles).where(and(eq(storedFiles.orgId, orgId), eq(storedFiles.key, key))).limit(1);
    return row;
  }

  /** Newest first. */
  async list(orgId: string, filter: FileFilter, limit: number, offset: number): Promise<{ rows: StoredFileRow[]; total: number }> {
    const conditions: SQL[] = [eq(storedFiles.orgId, orgId)];
    if (filter.pipelineId !== undefined) conditions.push(eq(storedFiles.pipelineId, filter.pipelineId));
    if (filter.executionId !== undefined) conditions.push(eq(storedFiles.executionId, filter.executionId));
    if (filter.before !== undefined) conditions.push(lt(storedFiles.createdAt, filter.before));
    const where = and(...conditions);
    const [rows, totals] = await Promise.all([
      this.db.select().from(storedFiles).where(where).orderBy(desc(storedFiles.createdAt), desc(storedFiles.key)).limit(limit).offset(offset),
      this.db.select({ n: count() }).from(storedFiles).where(where),
    ]);
    return { rows, total: totals[0]?.n ?? 0 };
  }

  async remove(orgId: string, id: string): Promise<void> {
    await this.db.delete(storedFiles).where(and(eq(storedFiles.orgId, orgId), eq(storedFiles.id, id)));
  }
}
