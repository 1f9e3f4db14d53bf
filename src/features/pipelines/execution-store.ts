// Execution records in D1: one row per execution with its status, timing and
// error summary; the full record (per-node inputs, outputs, logs) inline as JSON,
// or in R2 when large, with a pointer in the row.
import { and, count, desc, eq, gte, isNotNull, lte, ne, type SQL, sql } from "drizzle-orm";
import type { Database, Write } from "../../platform/db/client";
import { type ExecutionRow, executions } from "./tables";
import { spill, unspill } from "../../platform/db/spill";
import type { Env } from "../../platform/env";
import { notFound } from "../../platform/errors";
import type { NodeError, NodeState } from "./engine";

export interface ExecutionRecord {
  inputs: unknown;
  outputs: unknown;
  nodes: Record<string, NodeState>;
  error?: NodeError;
}

export type NewExecution = Pick<
  ExecutionRow,
  "orgId" | "id" | "pipelineId" | "pipelineVersion" | "trigger" | "testMode" | "mode" | "retryOf" | "retryFromNode" | "idempotencyKey"
>;

export interface ExecutionFilter {
  pipelineId?: string;
  status?: string;
  since?: string;
  until?: string;
  includeTest?: boolean;
}

export const executionNotFound = (id: string) => notFound(`Execution ${id} not found`, "EXECUTION_NOT_FOUND");

export class ExecutionStore {
  constructor(
    private readonly db: Database,
    private readonly env: Env,
  ) {}

  async start(input: NewExecution): Promise<ExecutionRow> {
    const row: ExecutionRow = {
      ...input,
      status: "running",
      startedAt: new Date().toISOString(),
      finishedAt: null,
      durationMs: null,
      errorCode: null,
      errorMessage: null,
      errorNodeId: null,
      errorNodeType: null,
      record: null,
      recordKey: null,
    };
    await this.db.insert(executions).values(row);
    return row;
  }

  /** Removes the row of an execution that never began running. */
  async discard(orgId: string, id: string): Promise<void> {
    await this.db.delete(executions).where(and(eq(executions.orgId, orgId), eq(executions.id, id)));
  }

  async finish(orgId: string, id: string, status: string, startedAt: string, record: ExecutionRecord): Promise<void> {
    const finished = await this.finishedFields(orgId, id, status, startedAt, record);
    await this.db
      .update(executions)
      .set(finished)
      .where(and(eq(executions.orgId, orgId), eq(executions.id, id)));
  }

  /**
   * The one insert recording a finished execution whose start was never recorded (see `execute`),
   * for the caller's batch. Wrapped: a query builder is a thenable, which resolving a promise would run.
   */
  async finishedInsert(input: NewExecution, status: string, startedAt: string, record: ExecutionRecord): Promise<{ write: Write }> {
    const finished = await this.finishedFields(input.orgId, input.id, status, startedAt, record);
    return { write: this.db.insert(executions).values({ ...input, startedAt, ...finished }) };
  }

  /** The columns a finished execution sets; its record goes to R2 when too large for the row. */
  private async finishedFields(orgId: string, id: string, status: string, startedAt: string, record: ExecutionRecord) {
    const finishedAt = new Date();
    const { inline, key } = await spill(this.env.BLOBS, `orgs/${orgId}/executions/${id}.json`, JSON.stringify(record), "application/json");
    return {
      status,
      finishedAt: finishedAt.toISOString(),
      durationMs: finishedAt.getTime() - Date.parse(startedAt),
      errorCode: record.error?.code ?? null,
      errorMessage: record.error?.message ?? null,
      errorNodeId: record.error?.node_id ?? null,
      errorNodeType: record.error?.node_type ?? null,
      record: inline,
      recordKey: key,
    };
  }

  async get(orgId: string, id: string): Promise<ExecutionRow> {
    const row = await this.db.select().from(executions).where(and(eq(executions.orgId, orgId), eq(executions.id, id))).get();
    if (!row) throw executionNotFound(id);
    return row;
  }

  async record(row: ExecutionRow): Promise<ExecutionRecord | undefined> {
    const text = await unspill(this.env.BLOBS, { inline: row.record, key: row.recordKey });
    return text === undefined ? undefined : (JSON.parse(text) as ExecutionRecord);
  }

  async byIdempotencyKey(orgId: string, pipelineId: string, key: string): Promise<ExecutionRow | undefined> {
    return this.db
      .select()
      .from(executions)
      .where(and(eq(executions.orgId, orgId), eq(executions.pipelineId, pipelineId), eq(executions.idempotencyKey, key)))
      .get();
  }

  private where(orgId: string, f: ExecutionFilter): SQL | undefined {
    return and(
      eq(executions.orgId, orgId),
      f.pipelineId ? eq(executions.pipelineId, f.pipelineId) : undefined,
      f.status ? eq(executions.status, f.status) : undefined,
      f.since ? gte(executions.startedAt, f.since) : undefined,
      f.until ? lte(executions.startedAt, f.until) : undefined,
      f.includeTest ? undefined : eq(executions.testMode, false),
    );
  }

  async list(orgId: string, filter: ExecutionFilter, limit: number, offset: number) {
    const where = this.where(orgId, { ...filter, includeTest: filter.includeTest ?? true });
    const [rows, totals] = await Promise.all([
      this.db.select().from(executions).where(where).orderBy(desc(executions.startedAt), desc(executions.id)).limit(limit).offset(offset),
      this.db.select({ n: count() }).from(executions).where(where),
    ]);
    return { rows, total: totals[0]?.n ?? 0 };
  }

  /** Success rate and mean duration over finished executions; failures grouped by the failing node type. */
  async stats(orgId: string, filter: ExecutionFilter) {
    const where = this.where(orgId, filter);
    const [totals, errors] = await Promise.all([
      this.db
        .select({
          total: count(),
          completed: sql<number>`sum(case when ${executions.status} = 'completed' then 1 else 0 end)`,
          failed: sql<number>`sum(case when ${executions.status} = 'failed' then 1 else 0 end)`,
          running: sql<number>`sum(case when ${executions.status} = 'running' then 1 else 0 end)`,
          avgDuration: sql<number | null>`avg(${executions.durationMs})`,
        })
        .from(executions)
        .where(where),
      this.db
        .select({ nodeType: executions.errorNodeType, code: executions.errorCode, n: count() })
        .from(executions)
        .where(and(where, eq(executions.status, "failed"), isNotNull(executions.errorNodeType), ne(executions.errorNodeType, "")))
        .groupBy(executions.errorNodeType, executions.errorCode),
    ]);
    const t = totals[0];
    const finished = (t?.completed ?? 0) + (t?.failed ?? 0);
    const byType: Record<string, { count: number; codes: Record<string, number> }> = {};
    for (const e of errors) {
      const type = e.nodeType as string;
      const entry = byType[type] ?? { count: 0, codes: {} };
      byType[type] = entry;
      entry.count += e.n;
      entry.codes[e.code ?? "UNKNOWN"] = e.n;
    }
    return {
      total_executions: t?.total ?? 0,
      completed: t?.completed ?? 0,
      failed: t?.failed ?? 0,
      running: t?.running ?? 0,
      success_rate: finished ? (t?.completed ?? 0) / finished : null,
      average_duration_ms: t?.avgDuration === null || t?.avgDuration === undefined ? null : Math.round(t.avgDuration),
      error_distribution: byType,
    };
  }
}
