// What the copilot's use cases read of an organization: a pipeline given by id or inline,
// and the org's connectors as configuration context.
import type { OrgContext } from "../../../platform/org-context";
import { badRequest } from "../../../platform/errors";
import { listConnectors } from "../../connectors";
import { type Definition, DefinitionSchema, getPipeline, type PipelineRow } from "../../pipelines";
import type { ConfigureContext } from "../configure";

/** Connectors offered as context: enough for any org's configuration, bounded. */
const MAX_CONNECTORS = 100;

export async function configureContext(ctx: OrgContext): Promise<ConfigureContext> {
  const { rows } = await listConnectors(ctx, MAX_CONNECTORS, 0);
  return { connectors: rows.map((r) => ({ id: r.id, name: r.name, type: r.type })) };
}

export interface PipelineRef {
  pipeline_id?: string;
  definition?: unknown;
}

export interface LoadedPipeline {
  row?: PipelineRow;
  name: string;
  definition: Definition;
}

/** The stored pipeline (the org's only: 404 otherwise) or the given definition, which must have the definition's shape. */
export async function loadPipeline(ctx: OrgContext, ref: PipelineRef): Promise<LoadedPipeline> {
  if (ref.pipeline_id) {
    const row = await getPipeline(ctx, ref.pipeline_id);
    return { row, name: row.name, definition: row.definition as Definition };
  }
  if (ref.definition === undefined) throw badRequest("Give pipeline_id or definition");
  const parsed = DefinitionSchema.safeParse(ref.definition);
  if (!parsed.success) {
    throw badRequest(
      "definition is not a pipeline definition (nodes, connections)",
      parsed.error.issues.map((i) => ({ path: `definition.${i.path.join(".")}`, message: i.message })),
    );
  }
  return { name: "Pipeline", definition: parsed.data };
}
