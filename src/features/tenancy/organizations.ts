// Organization records: the tenants. Created by the admin CLI, read by auth.
import { eq } from "drizzle-orm";
import type { Database } from "../../platform/db/client";
import { type OrganizationRow, organizations } from "./tables";
import type { LimitOverrides } from "./limits/config";

export interface NewOrganization {
  id?: string;
  name: string;
  limits?: LimitOverrides;
}

export class OrganizationStore {
  constructor(private readonly db: Database) {}

  async create(input: NewOrganization): Promise<OrganizationRow> {
    const row: OrganizationRow = {
      id: input.id ?? crypto.randomUUID(),
      name: input.name,
      limits: (input.limits ?? {}) as Record<string, number>,
      createdAt: new Date().toISOString(),
    };
    await this.db.insert(organizations).values(row);
    return row;
  }

  async get(id: string): Promise<OrganizationRow | undefined> {
    return this.db.select().from(organizations).where(eq(organizations.id, id)).get();
  }

  async setLimits(id: string, limits: LimitOverrides): Promise<void> {
    await this.db
      .update(organizations)
      .set({ limits: limits as Record<string, number> })
      .where(eq(organizations.id, id));
  }
}
