// The org's bridge rows (D1, on the org's shard). Every query names the org.
import { and, count, desc, eq } from "drizzle-orm";
import type { Database } from "../../platform/db/client";
import { type BridgeRow, bridges } from "./tables";

export class BridgeStore {
  constructor(private readonly db: Database) {}

  async insert(row: BridgeRow): Promise<void> {
    await this.db.insert(bridges).values(row);
  }

  async get(orgId: string, id: string): Promise<BridgeRow | undefined> {
    return this.db
      .select()
      .from(bridges)
      .where(and(eq(bridges.orgId, orgId), eq(bridges.id, id)))
      .get();
  }

  async list(orgId: string, limit: number, offset: number): Promise<{ rows: BridgeRow[]; total: number }> {
    const [rows, totals] = await Promise.all([
      this.db.select().from(bridges).where(eq(bridges.orgId, orgId)).orderBy(desc(bridges.createdAt), desc(bridges.id)).limit(limit).offset(offset),
      this.db.select({ n: count() }).from(bridges).where(eq(bridges.orgId, orgId)),
    ]);
    return { rows, total: totals[0]?.n ?? 0 };
  }

  /** Replaces the credential's hash; false when the bridge is not in this org. */
  async setCredential(orgId: string, id: string, credentialHash: string, credentialPrefix: string, at: string): Promise<boolean> {
    const changed = await this.db
      .update(bridges)
      .set({ credentialHash, credentialPrefix, credentialRotatedAt: at })
      .where(and(eq(bridges.orgId, orgId), eq(bridges.id, id)))
      .returning({ id: bridges.id });
    return changed.length > 0;
  }

  async delete(orgId: string, id: string): Promise<boolean> {
    const gone = await this.db
      .delete(bridges)
      .where(and(eq(bridges.orgId, orgId), eq(bridges.id, id)))
      .returning({ id: bridges.id });
    return gone.length > 0;
  }
}
