// Calling a custom tool with arguments, as an agent would: the arguments are
// checked against the tool's JSON Schema, then sent through its connector or
// run as a synchronous execution of its deployed pipeline.
import type { OrgContext } from "../../../../platform/org-context";
import type { ToolRow } from "./tables";
import { type ConnectorAuth, ConnectorStore, assertConnectorDestinations, connectorClient } from "../../../connectors";
import { ApiError, validationFailed } from "../../../../platform/errors";
import { outboundPolicyOf } from "../../../../platform/outbound/policy";
import { PipelineStore } from "../../../pipelines";
import { type ToolImplementation, argumentErrors } from "./definition";
import { syntaxError } from "../../../code";
import type { Principal } from "../../../tenancy";

export interface ToolResult {
  ok: boolean;
  result: unknown;
  execution_id?: string;
  status?: number;
  /** A code tool's ctx.log lines. */
  logs?: string[];
  /** A code tool's would-writes, in test mode. */
  would_write?: { target: string; payload: unknown }[];
}

const PLACEHOLDER = /\{([A-Za-z0-9_]+)\}/g;

/** Fills {name} placeholders of a path (its segments or its query string) with URL-encoded argument values. */
function fillPath(path: string, args: Record<string, unknown>): string {
  return path.replace(PLACEHOLDER, (_, name: string) => encodeURIComponent(argText(args[name] ?? "")));
}

const argText = (v: unknown) => (typeof v === "string" ? v : JSON.stringify(v));

/**
 * Where an HTTP tool's arguments go, as its definition says: each {name} placeholder of the path
 * (a segment or a query value) takes its argument; every other argument goes once, to the query
 * string of a GET or to the JSON body of the other methods. An argument a placeholder took is
 * not sent again.
 */
export function toolRequest(impl: Extract<ToolImplementation, { kind: "http" }>, args: Record<string, unknown>): { path: string; query?: [string, string][]; body?: string } {
  const placed = new Set([...impl.path.matchAll(PLACEHOLDER)].map((m) => m[1]!));
  const rest = Object.entries(args).filter(([k]) => !placed.has(k));
  const path = fillPath(impl.path, args);
  if (impl.method === "GET") return { path, query: rest.map(([k, v]): [string, string] => [k, argText(v)]) };
  return { path, body: JSON.stringify(Object.fromEntries(rest)) };
}

/**
 * The connector or pipeline a tool names must exist in the same organization; a connector
 * whose destination the outbound guard refuses fails with DESTINATION_NOT_ALLOWED.
 */
export async function implementationErrors(ctx: OrgContext, impl: ToolImplementation) {
  const { env, orgId } = ctx;
  if (impl.kind === "http") {
    const found = await new ConnectorStore(ctx.db, env).get(orgId, impl.connector_id);
    if (!found) return [{ path: "implementation.connector_id", message: `No connector ${impl.connector_id}` }];
    assertConnectorDestinations(ctx.connectorTypes, { type: found.type, endpoint: found.endpoint, auth: found.auth as ConnectorAuth }, outboundPolicyOf(env), "implementation.connector.");
    return [];
  }
  if (impl.kind === "code") {
    const err = syntaxError(impl.code);
    const errors = err ? [{ path: "implementation.code", message: `${err.message} (line ${err.line ?? "?"}, column ${err.column ?? "?"})` }] : [];
    const s = impl.secrets;
    if (s && !(await new ConnectorStore(ctx.db, env).get(orgId, s.connector_id))) errors.push({ path: "implementation.secrets.connector_id", message: `No connector ${s.connector_id}` });
    return errors;
  }
  try {
    await new PipelineStore(ctx.db).get(orgId, impl.pipeline_id);
    return [];
  } catch {
    return [{ path: "implementation.pipeline_id", message: `No pipeline ${impl.pipeline_id}` }];
  }
}

/**
 * Runs a tool as `principal`; in test mode (an ai node of a test-mode execution) it writes nothing outside.
 * Pipeline tools run through the org context's `execute` (wired in src/main/wiring.ts), since
 * agents, which call tools, are part of pipeline runs.
 */
export async function invokeTool(ctx: OrgContext, principal: Principal, tool: ToolRow, args: Record<string, unknown>, concurrencyLimit: number, testMode = false): Promise<ToolResult> {
  const errors = argumentErrors(tool.parameters, args);
  if (errors.length) throw validationFailed(`Arguments do not match the parameters of tool ${tool.name}`, errors);
  const impl = tool.implementation as ToolImplementation;
  if (impl.kind === "code") {
    // The caller's principal: an agent's tool reads the store as the agent's run does.
    const { kind: _, ...config } = impl;
    const r = await ctx.code(principal, testMode).run(config, args);
    return { ok: r.ok, result: r.ok ? r.output : r.error, logs: r.logs, ...(testMode ? { would_write: r.would_write } : {}) };
  }
  if (impl.kind === "pipeline") {
    const res = await ctx.execute({ pipelineId: impl.pipeline_id, inputs: args, async: false, testMode, trigger: { kind: "manual" }, concurrencyLimit });
    return { ok: res.status === "completed", result: res.status === "completed" ? res.outputs : res.error, execution_id: res.execution_id };
  }
  const request = toolRequest(impl, args);
  const res = await connectorClient(ctx, testMode).fetch(impl.connector_id, request.path, {
    method: impl.method,
    query: request.query,
    headers: { accept: "application/json", ...(request.body === undefined ? {} : { "content-type": "application/json" }) },
    body: request.body,
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
