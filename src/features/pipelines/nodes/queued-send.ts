// What the queued mode of a sending node (output.enqueue, http_request, ehr_write, hl7.send) does:
// hand one message to a destination's durable queue under a delivery id derived from the run and
// the node, so a node run again within the same execution queues nothing twice. In test mode the
// destination is still resolved (an unknown one fails either way) and nothing is queued.
import { z } from "zod";
import type { OutboundMessage } from "../../destinations";
import type { NodeContext } from "../node-type";

export const DestinationIdConfig = z.string().min(1).max(64).describe("A destination (docs/destinations.md): the message goes to its durable queue instead of being sent now");

export interface QueuedOutput {
  queued: true;
  destination_id: string;
  delivery_id: string;
  /** True when this execution's node had queued the same message already. */
  duplicate: boolean;
  test_mode?: "not queued";
}

/** The delivery id of the node's `index`th message in this execution. */
export const deliveryIdOf = (ctx: NodeContext<unknown>, index = 0): string => `${ctx.executionId}:${ctx.nodeId}:${index}`;

export async function queueMessage(ctx: NodeContext<unknown>, destinationId: string, message: Omit<OutboundMessage, "id" | "source">): Promise<QueuedOutput> {
  await ctx.services.destinations.settings(destinationId);
  const id = deliveryIdOf(ctx);
  if (ctx.testMode) {
    ctx.wouldWrite(`destination:${destinationId}`, { id, ...message });
    return { queued: true, destination_id: destinationId, delivery_id: id, duplicate: false, test_mode: "not queued" };
  }
  const { duplicates } = await ctx.services.destinations.enqueue(destinationId, [{ ...message, id, source: { kind: "pipeline", id: ctx.executionId, execution_id: ctx.executionId, node_id: ctx.nodeId } }]);
  ctx.log("info", `queued to destination ${destinationId} as ${id}${duplicates.length ? " (already queued)" : ""}`);
  return { queued: true, destination_id: destinationId, delivery_id: id, duplicate: duplicates.length > 0 };
}
