// Client application records (control database), always read within their organization.
import { and, asc, count, desc, eq, isNotNull } from "drizzle-orm";
import type { Database } from "../../platform/db/client";
import { type ClientApplicationRow, clientApplications } from "./tables";

export type ClientChanges = Partial<Pick<ClientApplicationRow, "name" | "kind" | "jwks" | "jwksUrl" | "scopes" | "status" | "grantTypes" | "redirectUris" | "launchUri" | "secretHash" | "secretCreatedAt" | "accessPolicyId">>;

export class ClientApplicationStore {
  constructor(private readonly db: Database) {}

  async create(row: ClientApplicationRow): Promise<ClientApplicationRow> {
    await this.db.insert(clientApplications).values(row);
    return row;
  }

  async list(orgId: string, limit: number, offset: number): Promise<{ rows: ClientApplicationRow[]; total: number }> {
    const [rows, totals] = await Promise.all([
      this.db
        .select()
        .from(clientApplications)
        .where(eq(clientApplications.orgId, orgId))
        .orderBy(desc(clientApplications.createdAt), desc(clientApplications.id))
        .limit(limit)
        .offset(offset),
      this.db.select({ n: count() }).from(clientApplications).where(eq(clientApplications.orgId, orgId)),
    ]);
    return { rows, total: totals[0]?.n ?? 0 };
  }

  /**
   * The org's active apps with a launch URI (EHR launch), by name; at most `limit`. A stored launch
   * URI implies the authorization_code grant (checkClient refuses one without it on every write).
   */
  launchable(orgId: string, limit: number): Promise<Pick<ClientApplicationRow, "id" | "name" | "launchUri">[]> {
    return this.db
      .select({ id: clientApplications.id, name: clientApplications.name, launchUri: clientApplications.launchUri })
      .from(clientApplications)
      .where(and(eq(clientApplications.orgId, orgId), eq(clientApplications.status, "active"), isNotNull(clientApplications.launchUri)))
      .orderBy(asc(clientApplications.name), asc(clientApplications.id))
      .limit(limit);
  }

  get(orgId: string, id: string): Promise<ClientApplicationRow | undefined> {
    return this.db
      .select()
      .from(clientApplications)
      .where(and(eq(clientApplications.orgId, orgId), eq(clientApplications.id, id)))
      .get();
  }

  async update(orgId: string, id: string, changes: ClientChanges): Promise<ClientApplicationRow | undefined> {
    const rows = await this.db
      .update(clientApplications)
      .set(changes)
      .where(and(eq(clientApplications.orgId, orgId), eq(clientApplications.id, id)))
      .returning();
    return rows[0];
  }

  /** Sets the access policy the client's new tokens act under (null: none), when it is `from` (if given). */
  async setAccessPolicy(orgId: string, id: string, accessPolicyId: string | null, from?: string): Promise<ClientApplicationRow | undefined> {
    const rows = await this.db
      .update(clientApplications)
      .set({ accessPolicyId })
      .where(and(eq(clientApplications.orgId, orgId), eq(clientApplications.id, id), from === undefined ? undefined : eq(clientApplications.accessPolicyId, from)))
      .returning();
    return rows[0];
  }

  /** The clients whose tokens act under an access policy. */
  holding(orgId: string, accessPolicyId: string): Promise<ClientApplicationRow[]> {
    return this.db
      .select()
      .from(clientApplications)
      .where(and(eq(clientApplications.orgId, orgId), eq(clientApplications.accessPolicyId, accessPolicyId)));
  }

  async delete(orgId: string, id: string): Promise<ClientApplicationRow | undefined> {
    const rows = await this.db
      .delete(clientApplications)
      .where(and(eq(clientApplications.orgId, orgId), eq(clientApplications.id, id)))
      .returning();
    return rows[0];
  }
}
