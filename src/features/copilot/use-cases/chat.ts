// POST /copilot/chat: the copilot as a tool-calling assistant (the agents' tool loop) over the
// catalog, the validator, the org's FHIR data (read only) and test-mode execution. With
// context.pipeline_id the stored pipeline is loaded into the conversation to be modified.
// Its events are the agent stream's plus `validation` (each validator run) and `pipeline`
// (each valid definition the model proposed); docs/copilot.md lists them.
import type { OrgContext } from "../../../platform/org-context";
import { ApiError } from "../../../platform/errors";
import { outboundPolicyOf } from "../../../platform/outbound/policy";
import { type AgentEvent, collectTurn, recordingTurn, runAgent, sseFrame, ssePayload, sseStream } from "../../agents";
import { limitsOfOrg } from "../../tenancy";
import { hasPermission, type Principal } from "../../tenancy";
import { copilotTools } from "../chat-tools";
import type { ValidationReport } from "../findings";
import { catalogPrompt, DEFINITION_RULES } from "../generation/catalog-prompt";
import { copilotModel } from "../generation/model";
import { validatePipeline } from "../validate";
import { loadPipeline } from "./context";

export type CopilotEvent =
  | AgentEvent
  | { type: "validation"; report: ValidationReport }
  | { type: "pipeline"; name: string; definition: unknown; warnings: ValidationReport["warnings"]; pipeline_id: string | null; base_version: number | null };

export function encodeCopilotSse(e: CopilotEvent): string {
  switch (e.type) {
    case "validation":
      return sseFrame({ event: "validation", data: e.report });
    case "pipeline": {
      const { type: _t, ...data } = e;
      return sseFrame({ event: "pipeline", data });
    }
    default:
      return sseFrame(ssePayload(e));
  }
}

export interface CopilotChatRequest {
  message: string;
  stream: boolean;
  context?: { pipeline_id?: string; definition?: unknown };
  model?: string;
}

const MAX_STEPS = 8;

export type CopilotChatOutcome = { stream: ReadableStream<Uint8Array> } | { result: Awaited<ReturnType<typeof collectTurn>> & { model: string; pipeline: unknown; validation: ValidationReport | null } };

export async function copilotChat(ctx: OrgContext, principal: Principal, req: CopilotChatRequest): Promise<CopilotChatOutcome> {
  const model = await copilotModel(ctx, principal, req.model);
  const loaded = req.context?.pipeline_id || req.context?.definition ? await loadPipeline(ctx, req.context) : undefined;
  const policy = outboundPolicyOf(ctx.env);
  // Events a tool produced, by tool name in call order: each goes out after that call's result.
  const side = new Map<string, CopilotEvent[][]>();
  let running: CopilotEvent[] = [];
  const sideOf = (tool: string, make: () => void) => {
    running = [];
    make();
    side.set(tool, [...(side.get(tool) ?? []), running]);
  };
  const tools = copilotTools({
    registry: ctx.nodes,
    validate: (definition) => validatePipeline(definition, ctx.nodes, policy),
    track: sideOf,
    ...(hasPermission(principal, "fhir:read") ? { fhir: ctx.fhir(principal) } : {}),
    ...(hasPermission(principal, "pipelines:execute")
      ? {
          executeTest: async (pipelineId: string, inputs: Record<string, unknown>) => {
            const limit = (await limitsOfOrg(ctx)).concurrentExecutions;
            return ctx.execute({ pipelineId, inputs, async: false, testMode: true, trigger: { kind: "manual" }, concurrencyLimit: limit });
          },
        }
      : {}),
    onValidation: (report) => running.push({ type: "validation", report }),
    onProposal: (p, report) =>
      running.push({ type: "pipeline", name: p.name, definition: p.definition, warnings: report.warnings, pipeline_id: loaded?.row?.id ?? null, base_version: loaded?.row?.version ?? null }),
  });
  const context = loaded
    ? `\nThe user is working on the pipeline "${loaded.name}"${loaded.row ? ` (id ${loaded.row.id}, version ${loaded.row.version})` : ""}:\n${JSON.stringify(loaded.definition)}\nWhen asked to change it, keep its node ids and call propose_pipeline with the complete new definition.`
    : "";
  const system = `You are the copilot of a clinical data integration service: you help integration engineers build pipelines (graphs of nodes) and agents. Use your tools: search_node_catalog and get_node_schema to find node types and their configuration, validate_pipeline to check a definition, propose_pipeline to hand over a complete definition (it must validate), fhir_search to look at the organization's data, execute_test to run a stored pipeline in test_mode.\n${DEFINITION_RULES}\nNode types (id: description):\n${catalogPrompt(ctx.nodes)}${context}`;
  const agentEvents = recordingTurn(
    ctx,
    { agentId: "copilot", keyId: principal.keyId, model: model.info.id, promptChars: system.length + req.message.length },
    runAgent({ model: model.model, modelId: model.info.id, system, messages: [{ role: "user", content: req.message }], tools, agentId: "copilot", temperature: 0.2, maxSteps: MAX_STEPS }),
  );

  // Tool side events (validation, pipeline) go out right after the tool result that produced them.
  async function* events(): AsyncGenerator<CopilotEvent> {
    for await (const e of agentEvents) {
      yield e;
      if (e.type !== "tool_result") continue;
      const queue = side.get(e.tool);
      yield* queue?.shift() ?? [];
    }
  }
  if (req.stream) return { stream: sseStream(events(), encodeCopilotSse) };

  let pipeline: Extract<CopilotEvent, { type: "pipeline" }> | undefined;
  let validation: ValidationReport | undefined;
  async function* agentOnly(): AsyncGenerator<AgentEvent> {
    for await (const e of events()) {
      if (e.type === "pipeline") pipeline = e;
      else if (e.type === "validation") validation = e.report;
      else yield e;
    }
  }
  const turn = await collectTurn(agentOnly(), (e) => new ApiError(e.status, e.code, e.message));
  const { type: _t, ...proposed } = pipeline ?? { type: "pipeline" };
  return { result: { ...turn, model: model.info.id, pipeline: pipeline ? proposed : null, validation: validation ?? null } };
}
