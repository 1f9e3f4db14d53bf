// Access policy records (control database), always read within their organization.
import { and, count, desc, eq } from "drizzle-orm";
import type { Database } from "../../platform/db/client";
import { type AccessPolicyRow, accessPolicies } from "./tables";

export type PolicyChanges = Pick<AccessPolicyRow, "name" | "description" | "resources" | "updatedAt" | "updatedBy">;

export class AccessPolicyStore {
  constructor(private readonly db: Database) {}

  async create(row: AccessPolicyRow): Promise<AccessPolicyRow> {
    await this.db.insert(accessPolicies).values(row);
    return row;
  }

  async list(orgId: string, limit: number, offset: number): Promise<{ rows: AccessPolicyRow[]; total: number }> {
    const [rows, totals] = await Promise.all([
      this.db.select().from(accessPolicies).where(eq(accessPolicies.orgId, orgId)).orderBy(desc(accessPolicies.createdAt), desc(accessPolicies.id)).limit(limit).offset(offset),
      this.db.select({ n: count() }).from(accessPolicies).where(eq(accessPolicies.orgId, orgId)),
    ]);
    return { rows, total: totals[0]?.n ?? 0 };
  }

  get(orgId: string, id: string): Promise<AccessPolicyRow | undefined> {
    return this.db
      .select()
      .from(accessPolicies)
      .where(and(eq(accessPolicies.orgId, orgId), eq(accessPolicies.id, id)))
      .get();
  }

  async update(orgId: string, id: string, changes: PolicyChanges): Promise<AccessPolicyRow | undefined> {
    const rows = await this.db
      .update(accessPolicies)
      .set(changes)
      .where(and(eq(accessPolicies.orgId, orgId), eq(accessPolicies.id, id)))
      .returning();
    return rows[0];
  }

  async delete(orgId: string, id: string): Promise<AccessPolicyRow | undefined> {
    const rows = await this.db
      .delete(accessPolicies)
      .where(and(eq(accessPolicies.orgId, orgId), eq(accessPolicies.id, id)))
      .returning();
    return rows[0];
  }
}
