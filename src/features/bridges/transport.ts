// The transport of `bridge` targets: one attempt is one transmit through the relay object of the
// destination's organization and bridge; a drain's session checks the target (the bridge read
// from D1) once for all its deliveries. The bridge must be one of the destination's
// organization (the relay is named by both, so another org's bridge is never reached).
import { orgObject } from "../../platform/durable-objects/object-names";
import { ApiError } from "../../platform/errors";
import type { OrgContext } from "../../platform/org-context";
import type { AttemptResult, Delivery, Transport } from "../destinations";
import { BridgeStore } from "./store";

/** The schemes a bridge delivers to. */
const ADDRESS = /^(?:mllp:\/\/[^/\s:]+:\d{1,5}\/?|https?:\/\/\S+|file:\/\/\/\S*)$/i;

/** Whether a bridge can deliver to `address` (mllp://host:port, http(s)://…, file:///dir); what it may reach is the bridge's allow-list. */
export function isBridgeAddress(address: string): boolean {
  return ADDRESS.test(address);
}

const configuration = (message: string): AttemptResult => ({ ok: false, failure: { class: "configuration", message } });

/** Whether the destination's target can be delivered to through its bridge: the configuration failure if not. */
async function refusal(ctx: OrgContext, destination: Delivery["destination"]): Promise<AttemptResult | undefined> {
  const target = destination.target;
  if (target.kind !== "bridge") return configuration(`the bridge transport cannot deliver to a ${target.kind} target`);
  if (destination.orgId !== ctx.orgId) return configuration("the destination is not this organization's");
  if (!isBridgeAddress(target.address)) return configuration(`a bridge cannot deliver to ${target.address}: use mllp://host:port, http(s)://… or file:///dir`);
  if (!(await new BridgeStore(ctx.db).get(ctx.orgId, target.bridge_id))) return configuration(`bridge ${target.bridge_id} does not exist in this organization`);
  return undefined;
}

/** One attempt through the relay object of the destination's organization and bridge (checked before). */
async function transmit(ctx: OrgContext, { destination, message, signal }: Delivery): Promise<AttemptResult> {
  const target = destination.target;
  if (target.kind !== "bridge") return configuration(`the bridge transport cannot deliver to a ${target.kind} target`);
  const relay = orgObject(ctx.env.BRIDGE_RELAY, ctx.orgId, target.bridge_id);
  const attempt = relay.transmit(ctx.orgId, {
    delivery_id: message.id,
    destination_id: destination.id,
    round: message.reprocessed,
    address: target.address,
    body: message.body,
    content_type: message.content_type,
    headers: { ...destination.http.headers, ...message.headers },
    method: message.method ?? destination.http.method,
    path: message.path,
    timeout_ms: destination.timeout_ms,
  });
  const aborted = new Promise<AttemptResult>((resolve) => {
    const answer = () => resolve({ ok: false, failure: { class: "timeout", message: "the attempt was cancelled" } });
    if (signal.aborted) answer();
    else signal.addEventListener("abort", answer, { once: true });
  });
  try {
    return await Promise.race([attempt, aborted]);
  } catch (e) {
    return { ok: false, failure: { class: "bridge_offline", message: `the bridge relay failed: ${e instanceof Error ? e.message : String(e)}` } };
  }
}

export const bridgeTransport: Transport = {
  async deliver(ctx: OrgContext, delivery: Delivery): Promise<AttemptResult> {
    return (await refusal(ctx, delivery.destination)) ?? transmit(ctx, delivery);
  },
  // A drain checks the target (the bridge read from D1) once, not per message; the bridge keeps
  // the MLLP connections, so a session holds nothing to close.
  async session(ctx, destination, previous) {
    previous?.close();
    const refused = await refusal(ctx, destination);
    return {
      deliver: async (delivery) => refused ?? transmit(ctx, delivery),
      close: () => undefined,
    };
  },
  // The address's form is the schema's; whether the bridge is the org's is known only here.
  async checkTarget(ctx, target) {
    if (target.kind !== "bridge" || (await new BridgeStore(ctx.db).get(ctx.orgId, target.bridge_id))) return undefined;
    return new ApiError(422, "BRIDGE_NOT_FOUND", `Bridge ${target.bridge_id} not found`, [{ path: "target.bridge_id", message: "No such bridge in this organization" }]);
  },
};
