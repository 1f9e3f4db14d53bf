// POST /copilot/analyze: a pipeline (stored or given) or an agent (stored or given). Pipelines:
// the validator's errors and the copilot's warnings, plus failure rates per node from the
// stored pipeline's real executions. Agents: static findings against the org's tools and models.
import type { OrgContext } from "../../../platform/org-context";
import { describeTools, listModels, loadAgent, modelSources } from "../../agents";
import { getPipeline } from "../../pipelines";
import { denial, type Principal } from "../../tenancy";
import { forbidden } from "../../../platform/errors";
import { outboundPolicyOf } from "../../../platform/outbound/policy";
import { type AgentShape, agentFindings } from "../agent-checks";
import { executionHistory, type ExecutionHistory } from "../execution-history";
import type { Finding } from "../findings";
import { validatePipeline } from "../validate";

export interface AnalyzeRequest {
  pipeline_id?: string;
  definition?: unknown;
  agent_id?: string;
  agent?: AgentShape;
}

export interface Analysis {
  kind: "pipeline" | "agent";
  id: string | null;
  errors: Finding[];
  warnings: Finding[];
  history?: ExecutionHistory;
  recommendations: string[];
}

/** Nodes failing more often than this in the recorded runs are called out. */
const FAILURE_RATE_ALERT = 0.2;

export async function analyze(ctx: OrgContext, principal: Principal, req: AnalyzeRequest): Promise<Analysis> {
  if (req.agent_id || req.agent) return analyzeAgent(ctx, principal, req);
  const row = req.pipeline_id ? await getPipeline(ctx, req.pipeline_id) : undefined;
  const report = validatePipeline(row ? row.definition : req.definition, ctx.nodes, outboundPolicyOf(ctx.env));
  const recommendations: string[] = [];
  let history: ExecutionHistory | undefined;
  if (row) {
    history = await executionHistory(ctx, row.id);
    for (const [id, n] of Object.entries(history.nodes)) {
      if (n.failed && n.failure_rate >= FAILURE_RATE_ALERT) {
        const [code] = Object.entries(n.errors).sort((a, b) => b[1] - a[1])[0] ?? ["UNKNOWN"];
        report.warnings.push({ node_id: id, message: `${id} failed in ${n.failed} of ${n.runs} recorded runs (${Math.round(n.failure_rate * 100)}%), most often ${code}` });
        recommendations.push(`Give ${id} a retry policy or an error route; look at its ${code} failures in GET /api/executions?pipeline_id=${row.id}`);
      }
    }
    if (!history.executions) recommendations.push("No executions recorded yet: run it with test_mode true to see it work");
  }
  for (const w of report.warnings) if (/no error route/.test(w.message)) recommendations.push(`Route ${w.node_id}'s errors so a failing call does not stop the run`);
  return { kind: "pipeline", id: row?.id ?? null, errors: report.errors, warnings: report.warnings, ...(history ? { history } : {}), recommendations };
}

async function analyzeAgent(ctx: OrgContext, principal: Principal, req: AnalyzeRequest): Promise<Analysis> {
  const denied = denial(principal, "agents:read");
  if (denied) throw forbidden(denied);
  const row = req.agent_id ? await loadAgent(ctx.db, principal.orgId, req.agent_id) : undefined;
  const agent: AgentShape = row
    ? { name: row.name, prompt_template: row.promptTemplate, system_prompt: row.systemPrompt, tools: row.tools, model_config: row.modelConfig }
    : (req.agent as AgentShape);
  const services = ctx.agents(principal);
  const [tools, sources] = await Promise.all([describeTools(agent.tools, services), modelSources(ctx.env, services)]);
  const { errors, warnings } = agentFindings(agent, tools, listModels(sources));
  const recommendations = [...errors, ...warnings].map((f) => `${f.path}: ${f.message}`);
  return { kind: "agent", id: row?.id ?? null, errors, warnings, recommendations };
}
