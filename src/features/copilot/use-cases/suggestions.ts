// Suggestions: improvements of a stored pipeline, kept per organization as a JSON Patch of
// the version they were computed against. Deterministic ones (error routes, retries from the
// execution history, configuration) always; with `use_model`, the model's refinement too.
// Applying one re-checks the patched definition and saves it as the next version, only while
// the pipeline is still at the suggestion's version (409 otherwise).
import { applyPatch, compare, type Operation } from "fast-json-patch";
import type { OrgContext } from "../../../platform/org-context";
import { badRequest, conflict } from "../../../platform/errors";
import { outboundPolicyOf } from "../../../platform/outbound/policy";
import { checkDefinition, type Definition, DefinitionSchema, getPipeline, PipelineStore } from "../../pipelines";
import type { Principal } from "../../tenancy";
import { executionHistory } from "../execution-history";
import { type Improvement, improvements } from "../improvements";
import { SuggestionStore } from "../suggestion-store";
import type { PatchOperation, SuggestionRow } from "../tables";
import { validatePipeline } from "../validate";
import { configureContext } from "./context";
import { refinePipelineFor } from "./generate";

export interface SuggestRequest {
  pipeline_id: string;
  use_model?: boolean;
  goals?: string;
  model?: string;
}

/** The patch from one definition to another (RFC 6902, with fast-json-patch). */
export const diffOf = (from: Definition, to: Definition): PatchOperation[] => compare(from, to) as PatchOperation[];

export async function createSuggestions(ctx: OrgContext, principal: Principal, req: SuggestRequest): Promise<SuggestionRow[]> {
  const row = await getPipeline(ctx, req.pipeline_id);
  const current = DefinitionSchema.parse(row.definition);
  const found: Improvement[] = improvements(current, ctx.nodes, await executionHistory(ctx, row.id), await configureContext(ctx));
  if (req.use_model) {
    const refined = await refinePipelineFor(ctx, principal, { pipeline_id: row.id, goals: req.goals, model: req.model });
    const { name: _n, description: _d, ...definition } = refined.pipeline;
    found.push({ kind: "model", title: "Refinement by the copilot's model", rationale: refined.findings.join("; ") || (req.goals ?? "General robustness"), definition });
  }
  const policy = outboundPolicyOf(ctx.env);
  // Only changes the service would accept, and that change something, are kept.
  const valid = found
    .map((i) => ({ i, patch: diffOf(current, i.definition) }))
    .filter(({ i, patch }) => patch.length && validatePipeline(i.definition, ctx.nodes, policy).valid);
  return new SuggestionStore(ctx.db).createMany(
    valid.map(({ i, patch }) => ({
      orgId: principal.orgId,
      pipelineId: row.id,
      baseVersion: row.version,
      kind: i.kind,
      title: i.title,
      rationale: i.rationale,
      patch,
      createdBy: principal.keyId,
    })),
  );
}

export function listSuggestions(ctx: OrgContext, pipelineId: string | undefined, limit: number, offset: number) {
  return new SuggestionStore(ctx.db).list(ctx.orgId, pipelineId, limit, offset);
}

export async function applySuggestion(ctx: OrgContext, id: string) {
  const { orgId } = ctx;
  const suggestions = new SuggestionStore(ctx.db);
  const suggestion = await suggestions.get(orgId, id);
  if (suggestion.status === "applied") throw conflict(`Suggestion ${id} was already applied (version ${suggestion.appliedVersion})`, "SUGGESTION_APPLIED");
  const row = await getPipeline(ctx, suggestion.pipelineId);
  if (row.version !== suggestion.baseVersion) {
    throw conflict(`Pipeline ${row.id} is at version ${row.version}; the suggestion was made for version ${suggestion.baseVersion}`, "PIPELINE_VERSION_CONFLICT");
  }
  let patched: unknown;
  try {
    patched = applyPatch(structuredClone(row.definition), suggestion.patch as Operation[], true, false).newDocument;
  } catch (e) {
    throw badRequest(`The suggestion's patch does not apply: ${e instanceof Error ? e.message : String(e)}`);
  }
  const { definition } = checkDefinition(patched, ctx.nodes, outboundPolicyOf(ctx.env));
  const saved = await new PipelineStore(ctx.db).update(orgId, row.id, { name: row.name, description: row.description, definition }, suggestion.baseVersion);
  const applied = await suggestions.markApplied(orgId, id, saved.version);
  return { suggestion: applied, pipeline: saved };
}
