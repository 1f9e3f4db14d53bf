// Deliveries through one of the org's connectors: over the connector type's own transport (mllp:
// the message, then its ACK read by the type) or as an HTTP request under its endpoint, with
// the connector's auth. A connector deleted meanwhile holds the queue as a configuration failure.
import { type ConnectorClient, connectorClient } from "../../connectors";
import { ApiError } from "../../../platform/errors";
import type { OrgContext } from "../../../platform/org-context";
import { ackResult, failed } from "../classify";
import type { AttemptResult, Delivery, Transport } from "../model";
import { errorResult } from "./errors";
import { sendHttp } from "./http";

async function exchange(ctx: OrgContext, client: ConnectorClient, connectorId: string, type: string, d: Delivery): Promise<AttemptResult> {
  const transport = ctx.connectorTypes.get(type)?.transport;
  if (!transport) return failed("configuration", `Connector type ${type} is not offered by this deployment`);
  let answer: string;
  try {
    answer = await client.exchange(connectorId, d.message.body, { timeoutMs: d.destination.timeout_ms, signal: d.signal });
  } catch (err) {
    return errorResult(err);
  }
  try {
    const { code, reason } = transport.readAnswer(answer);
    return ackResult(code, reason, answer, d.destination.retry.retryable_ack_codes);
  } catch (err) {
    return failed("invalid_response", `The receiver's answer could not be read: ${err instanceof Error ? err.message : String(err)}`, { response: answer.slice(0, 4096) });
  }
}

export const connectorTransport: Transport = {
  async deliver(ctx, d) {
    if (d.destination.target.kind !== "connector") return failed("configuration", "Not a connector destination");
    const id = d.destination.target.connector_id;
    const client = connectorClient(ctx, false);
    const type = await client.type(id).catch(() => undefined);
    if (!type) return failed("configuration", `Connector ${id} no longer exists: messages wait until the destination names one that does`);
    if (ctx.connectorTypes.get(type)?.transport) return exchange(ctx, client, id, type, d);
    return sendHttp((path, init) => client.fetch(id, path, init), d);
  },
  async checkTarget(ctx, target) {
    if (target.kind !== "connector") return undefined;
    if (await connectorClient(ctx, false).type(target.connector_id).catch(() => undefined)) return undefined;
    return new ApiError(422, "CONNECTOR_NOT_FOUND", `Connector ${target.connector_id} not found`, [{ path: "target.connector_id", message: "No such connector in this organization" }]);
  },
};
