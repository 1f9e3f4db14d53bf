// Which trigger nodes of a deployed definition need indexing so cron ticks and
// events can find their pipelines without reading every definition. Each trigger
// node type says what to index (NodeType.trigger.index).
import type { PipelineTriggerRow } from "./tables";
import type { Definition } from "./definition";
import type { NodeRegistry } from "./registry";

export function triggerRows(nodes: NodeRegistry, orgId: string, pipelineId: string, definition: Definition): PipelineTriggerRow[] {
  const rows: PipelineTriggerRow[] = [];
  for (const node of definition.nodes) {
    const trigger = nodes.get(node.type)?.trigger;
    if (!trigger || trigger.kind === "manual") continue;
    const entry = trigger.index?.(node.config) ?? { match: "", attributes: {} };
    rows.push({ orgId, pipelineId, nodeId: node.id, kind: trigger.kind, match: entry.match, attributes: entry.attributes });
  }
  return rows;
}
