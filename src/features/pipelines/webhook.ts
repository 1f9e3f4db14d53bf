// The webhook trigger: which trigger node a delivery starts and the inputs it gets.
// Pure, so the rules are testable without a Worker.
import { badRequest } from "../../platform/errors";
import type { Definition, PipelineNode } from "./definition";

const WEBHOOK_TRIGGER = "control.webhook_trigger";

/** The named webhook trigger node, or the first one; 400 when the version has none (by that id). */
export function webhookTrigger(definition: Definition, nodeId?: string): PipelineNode {
  const hooks = definition.nodes.filter((n) => n.type === WEBHOOK_TRIGGER);
  const hook = nodeId ? hooks.find((n) => n.id === nodeId) : hooks[0];
  if (!hook) throw badRequest(`The deployed version has no webhook trigger${nodeId ? ` ${nodeId}` : ""}`);
  return hook;
}

/** The trigger's inputs: the JSON body ({} when empty; 400 when not JSON), its content type and the receipt time. */
export function webhookInputs(text: string, contentType: string | undefined, receivedAt: Date) {
  let body: unknown = {};
  try {
    body = text ? JSON.parse(text) : {};
  } catch {
    throw badRequest("The webhook body is not valid JSON");
  }
  return { body, headers: { "content-type": contentType ?? "" }, received_at: receivedAt.toISOString() };
}
