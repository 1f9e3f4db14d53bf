// Helpers for pipeline tests: definitions built from short node lists, and
// creating (and deploying) pipelines through the API.
import { runDurableObjectAlarm } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { orgObject } from "../../src/platform/durable-objects/object-names";
import type { Tenant } from "./tenants";

export interface NodeSpec {
  id: string;
  type: string;
  config?: Record<string, unknown>;
  on_error?: "stop" | "continue" | "route";
  retry?: { max_attempts: number; backoff_ms: number; backoff_factor?: number };
  timeout_ms?: number;
  pinned_input?: Record<string, unknown>;
}

export const edge = (from: string, to: string, fromPort = "output", toPort = "input") => ({
  from: { node: from, port: fromPort },
  to: { node: to, port: toPort },
});

export const trigger = (id = "start"): NodeSpec => ({ id, type: "control.manual_trigger" });

export function definition(nodes: NodeSpec[], connections: ReturnType<typeof edge>[]) {
  return { nodes: nodes.map((n) => ({ config: {}, ...n })), connections };
}

export async function createPipeline(t: Tenant, def: unknown, opts: { deploy?: boolean; name?: string } = {}) {
  const res = await t.fetch("/api/pipelines", { method: "POST", json: { name: opts.name ?? "p", description: "", definition: def } });
  if (res.status !== 201) throw new Error(`create failed ${res.status}: ${await res.text()}`);
  const body = (await res.json()) as { id: string; version: number };
  if (opts.deploy !== false) {
    const dep = await t.fetch(`/api/pipelines/${body.id}/deploy`, { method: "POST" });
    if (dep.status !== 200) throw new Error(`deploy failed ${dep.status}`);
  }
  return body.id;
}

export interface ExecBody {
  execution_id: string;
  status: string;
  outputs: Record<string, unknown>;
  node_results: Record<string, { status: string; duration_ms: number; attempts: number; error?: { code: string; node_type: string }; would_write?: { target: string; payload: unknown }[] }>;
  error?: { code: string; node_id: string; node_type: string };
}

export async function run(t: Tenant, pipelineId: string, inputs: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) {
  const res = await t.fetch("/api/execute", { method: "POST", json: { pipeline_id: pipelineId, inputs, ...extra } });
  return { res, body: (await res.json()) as ExecBody };
}

export interface ExecutionRecordBody {
  status: string;
  mode: string;
  inputs: Record<string, unknown>;
  outputs: Record<string, { output: unknown }>;
  nodes: Record<string, { status: string; attempts: number }>;
}

/** Drives an async execution's Durable Object alarm until its record is final, and returns the record. */
export async function driveExecution(tenant: Tenant, executionId: string): Promise<ExecutionRecordBody> {
  const stub = orgObject(env.EXECUTION_RUNNER, tenant.orgId, executionId);
  for (let i = 0; i < 50; i++) {
    const body = (await (await tenant.fetch(`/api/executions/${executionId}`)).json()) as ExecutionRecordBody;
    if (body.status !== "running") return body;
    await runDurableObjectAlarm(stub);
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`execution ${executionId} did not finish`);
}
