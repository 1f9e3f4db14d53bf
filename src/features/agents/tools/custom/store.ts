// Custom tool records in D1, one unique name per organization.
import { and, count, desc, eq } from "drizzle-orm";
import type { Database } from "../../../../platform/db/client";
import { isUniqueViolation } from "../../../../platform/db/errors";
import { type ToolRow, tools } from "./tables";
import { conflict, notFound } from "../../../../platform/errors";
import type { ToolInput } from "./definition";

export const toolNotFound = (id: string) => notFound(`Tool ${id} not found`, "TOOL_NOT_FOUND");
const nameTaken = (name: string) => conflict(`A tool named ${name} already exists`, "TOOL_NAME_TAKEN");

export class ToolStore {
  constructor(private readonly db: Database) {}

  async create(orgId: string, input: ToolInput): Promise<ToolRow> {
    const now = new Date().toISOString();
    const row: ToolRow = { orgId, id: crypto.randomUUID(), ...input, createdAt: now, updatedAt: now };
    try {
      await this.db.insert(tools).values(row);
    } catch (e) {
      throw isUniqueViolation(e) ? nameTaken(input.name) : e;
    }
    return row;
  }

  async list(orgId: string, limit: number, offset: number) {
    const where = eq(tools.orgId, orgId);
    const [rows, totals] = await Promise.all([
      this.db.select().from(tools).where(where).orderBy(desc(tools.createdAt), desc(tools.id)).limit(limit).offset(offset),
      this.db.select({ n: count() }).from(tools).where(where),
    ]);
    return { rows, total: totals[0]?.n ?? 0 };
  }

  async get(orgId: string, id: string): Promise<ToolRow> {
    const row = await this.db.select().from(tools).where(and(eq(tools.orgId, orgId), eq(tools.id, id))).get();
    if (!row) throw toolNotFound(id);
    return row;
  }

  /** By name, as agents refer to their assigned tools. */
  async byName(orgId: string, name: string): Promise<ToolRow | undefined> {
    return this.db.select().from(tools).where(and(eq(tools.orgId, orgId), eq(tools.name, name))).get();
  }

  async update(orgId: string, id: string, input: ToolInput): Promise<ToolRow> {
    const next = { ...(await this.get(orgId, id)), ...input, updatedAt: new Date().toISOString() };
    try {
      await this.db.update(tools).set(next).where(and(eq(tools.orgId, orgId), eq(tools.id, id)));
    } catch (e) {
      throw isUniqueViolation(e) ? nameTaken(input.name) : e;
    }
    return next;
  }

  async delete(orgId: string, id: string): Promise<void> {
    const res = await this.db.delete(tools).where(and(eq(tools.orgId, orgId), eq(tools.id, id)));
    if (!res.meta.changes) throw toolNotFound(id);
  }
}
