// Calling a custom tool with arguments, as an agent would: the arguments are
// checked against the tool's JSON Schema, then sent through its connector or
// run as a synchronous execution of its deployed pipeline.
import type { ToolRow } from "./tables";
import { connectorClient } from "../../../connectors/client";
import { assertConnectorDestinations } from "../../../connectors/destinations";
import { ConnectorStore } from "../../../connectors/store";
import type { ConnectorAuth } from "../../../connectors/types";
import { database } from "../../../../platform/db/client";
import type { Env } from "../../../../platform/env";
import { ApiError, validationFailed } from "../../../../platform/errors";
import type { Execute } from "../../../pipelines/execution-service";
import { outboundPolicyOf } from "../../../../platform/outbound/policy";
import { PipelineStore } from "../../../pipelines/pipeline-store";
import { type ToolImplementation, argumentErrors } from "./definition";

export interface ToolResult {
  ok: boolean;
  result: unknown;
  execution_id?: string;
  status?: number;
}

/** Fills {name} placeholders of a path with URL-encoded argument values. */
export function fillPath(path: string, args: Record<string, unknown>): string {
  return path.replace(/\{([A-Za-z0-9_]+)\}/g, (_, name: string) => encodeURIComponent(String(args[name] ?? "")));
}

/**
 * The connector or pipeline a tool names must exist in the same organization; a connector
 * whose destination the outbound guard refuses fails with DESTINATION_NOT_ALLOWED.
 */
export async function implementationErrors(env: Env, orgId: string, impl: ToolImplementation) {
  if (impl.kind === "http") {
    const found = await new ConnectorStore(database(env.DB), env).get(orgId, impl.connector_id);
    if (!found) return [{ path: "implementation.connector_id", message: `No connector ${impl.connector_id}` }];
    assertConnectorDestinations({ type: found.type, endpoint: found.endpoint, auth: found.auth as ConnectorAuth }, outboundPolicyOf(env), "implementation.connector.");
    return [];
  }
  try {
    await new PipelineStore(database(env.DB)).get(orgId, impl.pipeline_id);
    return [];
  } catch {
    return [{ path: "implementation.pipeline_id", message: `No pipeline ${impl.pipeline_id}` }];
  }
}

/** Runs a tool; in test mode (an ai node of a test-mode execution) it writes nothing outside. */
/** `execute` runs pipeline tools; it is passed in (see service-wiring.ts) because agents, which call tools, are part of pipeline runs. */
export async function invokeTool(execute: Execute, env: Env, orgId: string, tool: ToolRow, args: Record<string, unknown>, concurrencyLimit: number, testMode = false): Promise<ToolResult> {
  const errors = argumentErrors(tool.parameters, args);
  if (errors.length) throw validationFailed(`Arguments do not match the parameters of tool ${tool.name}`, errors);
  const impl = tool.implementation as ToolImplementation;
  if (impl.kind === "pipeline") {
    const res = await execute(env, orgId, { pipelineId: impl.pipeline_id, inputs: args, async: false, testMode, trigger: { kind: "manual" }, concurrencyLimit });
    return { ok: res.status === "completed", result: res.status === "completed" ? res.outputs : res.error, execution_id: res.execution_id };
  }
  const bodyless = impl.method === "GET";
  const query = bodyless ? Object.entries(args).map(([k, v]): [string, string] => [k, typeof v === "string" ? v : JSON.stringify(v)]) : undefined;
  const res = await connectorClient(env, orgId, testMode).fetch(impl.connector_id, fillPath(impl.path, args), {
    method: impl.method,
    query,
    headers: { accept: "application/json", ...(bodyless ? {} : { "content-type": "application/json" }) },
    body: bodyless ? undefined : JSON.stringify(args),
  });
  const text = await res.text();
  let result: unknown = text;
  try {
    result = text ? JSON.parse(text) : null;
  } catch {
    // keep text
  }
  if (res.status >= 500) throw new ApiError(502, "TOOL_UPSTREAM_FAILED", `The tool's endpoint answered HTTP ${res.status}`);
  return { ok: res.ok, result, status: res.status };
}
