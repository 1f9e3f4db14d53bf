// Stored suggestions, always read and written within the caller's organization.
import { and, count, desc, eq } from "drizzle-orm";
import type { Database } from "../../platform/db/client";
import { conflict, notFound } from "../../platform/errors";
import { copilotSuggestions, type SuggestionRow } from "./tables";

export type NewSuggestion = Omit<SuggestionRow, "status" | "appliedVersion" | "appliedAt" | "createdAt" | "id">;

export const suggestionNotFound = (id: string) => notFound(`Suggestion ${id} not found`, "SUGGESTION_NOT_FOUND");

export class SuggestionStore {
  constructor(private readonly db: Database) {}

  async createMany(items: NewSuggestion[]): Promise<SuggestionRow[]> {
    const now = new Date().toISOString();
    const rows: SuggestionRow[] = items.map((s) => ({ ...s, id: crypto.randomUUID(), status: "open", appliedVersion: null, appliedAt: null, createdAt: now }));
    if (rows.length) await this.db.batch(rows.map((r) => this.db.insert(copilotSuggestions).values(r)) as [never, ...never[]]);
    return rows;
  }

  async get(orgId: string, id: string): Promise<SuggestionRow> {
    const row = await this.db.select().from(copilotSuggestions).where(and(eq(copilotSuggestions.orgId, orgId), eq(copilotSuggestions.id, id))).get();
    if (!row) throw suggestionNotFound(id);
    return row;
  }

  async list(orgId: string, pipelineId: string | undefined, limit: number, offset: number) {
    const where = and(eq(copilotSuggestions.orgId, orgId), pipelineId ? eq(copilotSuggestions.pipelineId, pipelineId) : undefined);
    const [rows, totals] = await Promise.all([
      this.db.select().from(copilotSuggestions).where(where).orderBy(desc(copilotSuggestions.createdAt), desc(copilotSuggestions.id)).limit(limit).offset(offset),
      this.db.select({ n: count() }).from(copilotSuggestions).where(where),
    ]);
    return { rows, total: totals[0]?.n ?? 0 };
  }

  /** Marks an open suggestion applied; 409 when another apply got there first. */
  async markApplied(orgId: string, id: string, version: number): Promise<SuggestionRow> {
    const [row] = await this.db
      .update(copilotSuggestions)
      .set({ status: "applied", appliedVersion: version, appliedAt: new Date().toISOString() })
      .where(and(eq(copilotSuggestions.orgId, orgId), eq(copilotSuggestions.id, id), eq(copilotSuggestions.status, "open")))
      .returning();
    if (!row) throw conflict(`Suggestion ${id} was already applied`, "SUGGESTION_APPLIED");
    return row;
  }
}
