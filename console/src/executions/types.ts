// The executions API's shapes as the console reads them (GET /api/executions, /api/executions/<id>,
// the step sessions of /api/execute/step).
export interface NodeFailure {
  code: string;
  message: string;
  node_id?: string | null;
  node_type?: string | null;
}

export interface ExecutionSummary {
  execution_id: string;
  pipeline_id: string;
  pipeline_version: number;
  status: string;
  trigger: string;
  mode: "sync" | "async";
  test_mode: boolean;
  retry_of: string | null;
  retry_from_node: string | null;
  started_at: string;
  finished_at: string | null;
  duration_ms: number | null;
  error: NodeFailure | null;
}

export interface NodeLog {
  level?: string;
  message?: string;
  at?: string;
  [k: string]: unknown;
}

export interface NodeRecord {
  status: string;
  node_type: string;
  inputs?: Record<string, unknown>;
  outputs?: Record<string, unknown>;
  logs?: NodeLog[];
  error?: NodeFailure;
  attempts?: number;
  started_at?: string;
  finished_at?: string;
  duration_ms?: number;
  would_write?: { target: string; payload: unknown }[];
}

export interface ExecutionDetail extends ExecutionSummary {
  inputs: unknown;
  outputs: unknown;
  nodes: Record<string, NodeRecord>;
}

export interface StepView {
  session_id: string;
  status: "waiting" | "completed" | "failed";
  current_node: string | null;
  expires_at: string;
  step?: { node_id: string } & NodeRecord;
  outputs?: unknown;
  node_results?: Record<string, { status: string; duration_ms?: number; error?: NodeFailure }>;
}

export const EXECUTION_STATUSES = ["running", "waiting", "completed", "failed"] as const;
