// Failure rates per node from an organization's real execution records of one pipeline:
// the most recent runs (their records hold every node's status, attempts and error).
import type { OrgData } from "../../platform/org-data";
import { ExecutionStore } from "../pipelines";

export const HISTORY_RUNS = 200;

export interface NodeHistory {
  runs: number;
  failed: number;
  failure_rate: number;
  average_duration_ms: number;
  /** Error codes and how often each stopped this node. */
  errors: Record<string, number>;
}

export interface ExecutionHistory {
  executions: number;
  completed: number;
  failed: number;
  success_rate: number | null;
  nodes: Record<string, NodeHistory>;
}

export async function executionHistory(data: OrgData, pipelineId: string, runs = HISTORY_RUNS): Promise<ExecutionHistory> {
  const store = new ExecutionStore(data.db, data.env);
  const { rows } = await store.list(data.orgId, { pipelineId, includeTest: true }, runs, 0);
  const nodes: Record<string, NodeHistory & { totalMs: number }> = {};
  let completed = 0;
  let failed = 0;
  for (const row of rows) {
    if (row.status === "completed") completed++;
    else if (row.status === "failed") failed++;
    const record = await store.record(row);
    for (const [id, state] of Object.entries(record?.nodes ?? {})) {
      if (state.status === "pending" || state.status === "skipped") continue;
      const n = nodes[id] ?? { runs: 0, failed: 0, failure_rate: 0, average_duration_ms: 0, errors: {}, totalMs: 0 };
      nodes[id] = n;
      n.runs++;
      n.totalMs += state.duration_ms ?? 0;
      if (state.status === "failed" || state.error) {
        n.failed++;
        const code = state.error?.code ?? "UNKNOWN";
        n.errors[code] = (n.errors[code] ?? 0) + 1;
      }
    }
  }
  const out: Record<string, NodeHistory> = {};
  for (const [id, { totalMs, ...n }] of Object.entries(nodes)) {
    out[id] = { ...n, failure_rate: n.runs ? n.failed / n.runs : 0, average_duration_ms: n.runs ? Math.round(totalMs / n.runs) : 0 };
  }
  const finished = completed + failed;
  return { executions: rows.length, completed, failed, success_rate: finished ? completed / finished : null, nodes: out };
}
