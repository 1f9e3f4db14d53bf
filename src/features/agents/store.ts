// D1 storage of agents, their version snapshots and their conversation index.
// Every method takes the org id first and every query filters on it.
import { type SQL, and, count, desc, eq, inArray, notExists, sql } from "drizzle-orm";
import type { Database } from "../../platform/db/client";
import { type AgentConversationRow, type AgentModelConfig, type AgentRow, type AgentVersionRow, agentConversations, agentVersions, agents } from "./tables";

/** The configuration a version snapshot holds and a restore brings back. */
export interface AgentConfig {
  name: string;
  agentType: string;
  description: string;
  modelConfig: AgentModelConfig;
  systemPrompt: string;
  promptTemplate: string;
  tools: string[];
  projectId: string | null;
}

export interface AgentFilters {
  type?: string;
  isActive?: boolean;
  projectId?: string;
}

const CONFIG_KEYS = [
  "name",
  "agentType",
  "description",
  "modelConfig",
  "systemPrompt",
  "promptTemplate",
  "tools",
  "projectId",
] as const satisfies readonly (keyof AgentConfig)[];

export function configOf(row: AgentRow): AgentConfig {
  return Object.fromEntries(CONFIG_KEYS.map((k) => [k, row[k]])) as unknown as AgentConfig;
}

export class AgentStore {
  constructor(private readonly db: Database) {}

  async create(orgId: string, config: AgentConfig, templateId: string | null): Promise<AgentRow> {
    const now = new Date().toISOString();
    const row: AgentRow = {
      orgId,
      id: crypto.randomUUID(),
      ...config,
      status: "active",
      deployed: false,
      deployedAt: null,
      templateId,
      version: 0,
      createdAt: now,
      updatedAt: now,
    };
    await this.db.insert(agents).values(row);
    return row;
  }

  async list(orgId: string, f: AgentFilters, limit: number, offset: number): Promise<{ rows: AgentRow[]; total: number }> {
    const conditions: SQL[] = [eq(agents.orgId, orgId)];
    if (f.type) conditions.push(eq(agents.agentType, f.type));
    if (f.isActive !== undefined) conditions.push(eq(agents.status, f.isActive ? "active" : "inactive"));
    if (f.projectId) conditions.push(eq(agents.projectId, f.projectId));
    const where = and(...conditions);
    const [rows, totals] = await Promise.all([
      this.db.select().from(agents).where(where).orderBy(desc(agents.createdAt), desc(agents.id)).limit(limit).offset(offset),
      this.db.select({ n: count() }).from(agents).where(where),
    ]);
    return { rows, total: totals[0]?.n ?? 0 };
  }

  get(orgId: string, id: string): Promise<AgentRow | undefined> {
    return this.db.select().from(agents).where(and(eq(agents.orgId, orgId), eq(agents.id, id))).get();
  }

  /** Which of `ids` are agents of the org. */
  async existing(orgId: string, ids: string[]): Promise<Set<string>> {
    if (!ids.length) return new Set();
    const rows = await this.db.select({ id: agents.id }).from(agents).where(and(eq(agents.orgId, orgId), inArray(agents.id, ids)));
    return new Set(rows.map((r) => r.id));
  }

  async update(orgId: string, id: string, patch: Partial<AgentConfig> & { status?: AgentRow["status"] }): Promise<AgentRow | undefined> {
    await this.db
      .update(agents)
      .set({ ...patch, updatedAt: new Date().toISOString() })
      .where(and(eq(agents.orgId, orgId), eq(agents.id, id)));
    return this.get(orgId, id);
  }

  async setDeployed(orgId: string, id: string, deployed: boolean): Promise<AgentRow | undefined> {
    const now = new Date().toISOString();
    await this.db
      .update(agents)
      .set({ deployed, deployedAt: deployed ? now : null, updatedAt: now })
      .where(and(eq(agents.orgId, orgId), eq(agents.id, id)));
    return this.get(orgId, id);
  }

  /**
   * Deletes an undeployed agent, then its versions and conversation index, in one batch; the
   * deployed check is part of the delete, so a racing deploy either wins or finds nothing.
   * Returns false when nothing was deleted (the agent is deployed or gone).
   */
  async delete(orgId: string, id: string): Promise<boolean> {
    const own = and(eq(agents.orgId, orgId), eq(agents.id, id));
    const gone = notExists(this.db.select({ one: sql`1` }).from(agents).where(own));
    const [deleted] = await this.db.batch([
      this.db.delete(agents).where(and(own, eq(agents.deployed, false))).returning({ id: agents.id }),
      this.db.delete(agentVersions).where(and(eq(agentVersions.orgId, orgId), eq(agentVersions.agentId, id), gone)),
      this.db.delete(agentConversations).where(and(eq(agentConversations.orgId, orgId), eq(agentConversations.agentId, id), gone)),
    ]);
    return deleted.length > 0;
  }

  /**
   * Snapshots the agent's configuration as the next version number, allocated in the same
   * statement that inserts it (racing snapshots take consecutive numbers); undefined when the
   * agent no longer exists.
   */
  async createVersion(orgId: string, agent: AgentRow, note: string | null, createdBy: string): Promise<AgentVersionRow | undefined> {
    const own = and(eq(agents.orgId, orgId), eq(agents.id, agent.id));
    const snapshot = JSON.stringify(configOf(agent));
    const [, inserted] = await this.db.batch([
      this.db.update(agents).set({ version: sql`${agents.version} + 1` }).where(own),
      this.db
        .insert(agentVersions)
        .select(
          this.db
            .select({
              orgId: agents.orgId,
              agentId: agents.id,
              version: agents.version,
              snapshot: sql`${snapshot}`.as("snapshot"),
              note: sql`${note}`.as("note"),
              createdAt: sql`${new Date().toISOString()}`.as("created_at"),
              createdBy: sql`${createdBy}`.as("created_by"),
            })
            .from(agents)
            .where(own),
        )
        .returning(),
    ]);
    return inserted[0];
  }

  async listVersions(orgId: string, agentId: string, limit: number, offset: number) {
    const where = and(eq(agentVersions.orgId, orgId), eq(agentVersions.agentId, agentId));
    const [rows, totals] = await Promise.all([
      this.db.select().from(agentVersions).where(where).orderBy(desc(agentVersions.version)).limit(limit).offset(offset),
      this.db.select({ n: count() }).from(agentVersions).where(where),
    ]);
    return { rows, total: totals[0]?.n ?? 0 };
  }

  getVersion(orgId: string, agentId: string, version: number): Promise<AgentVersionRow | undefined> {
    return this.db
      .select()
      .from(agentVersions)
      .where(and(eq(agentVersions.orgId, orgId), eq(agentVersions.agentId, agentId), eq(agentVersions.version, version)))
      .get();
  }

  // Conversation index. The messages themselves live in the conversation's Durable Object.

  async createConversation(orgId: string, agentId: string, title: string, createdBy: string): Promise<AgentConversationRow> {
    const now = new Date().toISOString();
    const row: AgentConversationRow = {
      orgId,
      agentId,
      id: crypto.randomUUID(),
      title,
      createdBy,
      createdAt: now,
      updatedAt: now,
      messageCount: 0,
    };
    await this.db.insert(agentConversations).values(row);
    return row;
  }

  async listConversations(orgId: string, agentId: string, limit: number, offset: number) {
    const where = and(eq(agentConversations.orgId, orgId), eq(agentConversations.agentId, agentId));
    const [rows, totals] = await Promise.all([
      this.db
        .select()
        .from(agentConversations)
        .where(where)
        .orderBy(desc(agentConversations.updatedAt), desc(agentConversations.id))
        .limit(limit)
        .offset(offset),
      this.db.select({ n: count() }).from(agentConversations).where(where),
    ]);
    return { rows, total: totals[0]?.n ?? 0 };
  }

  getConversation(orgId: string, agentId: string, id: string): Promise<AgentConversationRow | undefined> {
    return this.db
      .select()
      .from(agentConversations)
      .where(and(eq(agentConversations.orgId, orgId), eq(agentConversations.agentId, agentId), eq(agentConversations.id, id)))
      .get();
  }

  async recordMessages(orgId: string, agentId: string, id: string, added: number, title?: string): Promise<void> {
    await this.db
      .update(agentConversations)
      .set({
        messageCount: sql`${agentConversations.messageCount} + ${added}`,
        updatedAt: new Date().toISOString(),
        ...(title ? { title: sql`CASE WHEN ${agentConversations.title} = '' THEN ${title} ELSE ${agentConversations.title} END` } : {}),
      })
      .where(and(eq(agentConversations.orgId, orgId), eq(agentConversations.agentId, agentId), eq(agentConversations.id, id)));
  }

  async deleteConversation(orgId: string, agentId: string, id: string): Promise<void> {
    await this.db
      .delete(agentConversations)
      .where(and(eq(agentConversations.orgId, orgId), eq(agentConversations.agentId, agentId), eq(agentConversations.id, id)));
  }

  async conversationIds(orgId: string, agentId: string): Promise<string[]> {
    const rows = await this.db
      .select({ id: agentConversations.id })
      .from(agentConversations)
      .where(and(eq(agentConversations.orgId, orgId), eq(agentConversations.agentId, agentId)));
    return rows.map((r) => r.id);
  }
}
