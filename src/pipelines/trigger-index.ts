// Which trigger nodes of a deployed definition need indexing so cron ticks and
// events can find their pipelines without reading every definition.
import type { PipelineTriggerRow } from "../db/schema";
import type { Definition } from "./definition";

export function triggerRows(orgId: string, pipelineId: string, definition: Definition): PipelineTriggerRow[] {
  const rows: PipelineTriggerRow[] = [];
  for (const node of definition.nodes) {
    const config = node.config as Record<string, unknown>;
    if (node.type === "control.schedule_trigger") {
      rows.push({ orgId, pipelineId, nodeId: node.id, kind: "schedule", match: String(config.cron), attributes: {} });
    } else if (node.type === "control.event_trigger") {
      rows.push({
        orgId,
        pipelineId,
        nodeId: node.id,
        kind: "event",
        match: String(config.event_type),
        attributes: (config.attributes as Record<string, string> | undefined) ?? {},
      });
    } else if (node.type === "control.webhook_trigger") {
      rows.push({ orgId, pipelineId, nodeId: node.id, kind: "webhook", match: "", attributes: {} });
    }
  }
  return rows;
}
