// The executions API's shapes as the console reads them (GET /api/executions, /api/executions/<id>,
// the step sessions of /api/execute/step). Summaries come from the generated client's types; the
// per-node record is `unknown` in the document, so its shape is spelled out here.
import type { components } from "../../../clients/typescript/api.generated";

export interface NodeFailure {
  code: string;
  message: string;
  node_id?: string | null;
  node_type?: string | null;
}

/** As the OpenAPI document (and the generated client) declares it. */
export type ExecutionSummary = components["schemas"]["ExecutionSummary"];

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
