// Deliveries through one of the org's connectors: over the connector type's own transport (mllp:
// the message, then its ACK read by the type) or as an HTTP request under its endpoint, with
// the connector's auth. A connector deleted meanwhile holds the queue as a configuration failure.
// A drain's session reads the connector once and, for a type that keeps connections (mllp),
// sends every message of the drain over one connection, kept open for the next drain while it
// goes to the same endpoint (docs/destinations.md).
import { type ConnectorClient, type ConnectorConnection, connectorClient } from "../../connectors";
import { ApiError } from "../../../platform/errors";
import type { OrgContext } from "../../../platform/org-context";
import { ackResult, failed } from "../classify";
import type { AttemptResult, Delivery, Transport, TransportSession } from "../model";
import { errorResult } from "./errors";
import { sendHttp } from "./http";

type Send = (message: string, opts: { timeoutMs: number; signal: AbortSignal }) => Promise<string>;

async function exchange(ctx: OrgContext, send: Send, type: string, d: Delivery): Promise<AttemptResult> {
  const transport = ctx.connectorTypes.get(type)?.transport;
  if (!transport) return failed("configuration", `Connector type ${type} is not offered by this deployment`);
  let answer: string;
  try {
    answer = await send(d.message.body, { timeoutMs: d.destination.timeout_ms, signal: d.signal });
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

const gone = (id: string) => failed("configuration", `Connector ${id} no longer exists: messages wait until the destination names one that does`);

/** One delivery on its own: the connector read, a connection opened for this message only. */
async function deliverOnce(ctx: OrgContext, client: ConnectorClient, id: string, d: Delivery): Promise<AttemptResult> {
  const type = await client.type(id).catch(() => undefined);
  if (!type) return gone(id);
  if (ctx.connectorTypes.get(type)?.transport) return exchange(ctx, (body, opts) => client.exchange(id, body, opts), type, d);
  return sendHttp((path, init) => client.fetch(id, path, init), d);
}

/** A drain's deliveries through one connector: read once; over one kept-open connection when its type keeps one. */
class ConnectorSession implements TransportSession {
  constructor(
    private readonly ctx: OrgContext,
    private readonly client: ConnectorClient,
    readonly connectorId: string,
    /** Where the connection goes (the connector's type and endpoint): a session for the same place takes it over. */
    readonly place: string | null,
    private connection: ConnectorConnection | null,
    private readonly type: string | null,
  ) {}

  /** Hands the connection to a newer session going to the same place; this one no longer closes it. */
  takeConnection(): ConnectorConnection | null {
    const connection = this.connection;
    this.connection = null;
    return connection;
  }

  deliver(d: Delivery): Promise<AttemptResult> {
    const { connection, type } = this;
    if (!type) return Promise.resolve(gone(this.connectorId));
    if (connection) return exchange(this.ctx, (body, opts) => connection.exchange(body, opts), type, d);
    return deliverOnce(this.ctx, this.client, this.connectorId, d);
  }

  close(): void {
    this.takeConnection()?.close();
  }
}

export const connectorTransport: Transport = {
  async deliver(ctx, d) {
    if (d.destination.target.kind !== "connector") return failed("configuration", "Not a connector destination");
    return deliverOnce(ctx, connectorClient(ctx, false), d.destination.target.connector_id, d);
  },
  async session(ctx, destination, previous) {
    const id = destination.target.kind === "connector" ? destination.target.connector_id : "";
    const client = connectorClient(ctx, false);
    const type = id ? await client.type(id).catch(() => null) : null;
    const endpoint = type ? await client.endpoint(id) : null;
    const place = type && ctx.connectorTypes.get(type)?.transport?.connect ? `${type} ${endpoint}` : null;
    let connection: ConnectorConnection | null = null;
    if (place && previous instanceof ConnectorSession && previous.connectorId === id && previous.place === place) connection = previous.takeConnection();
    previous?.close();
    if (place && !connection) connection = (await client.connect(id).catch(() => null))?.connection ?? null;
    return new ConnectorSession(ctx, client, id, place, connection, type);
  },
  async checkTarget(ctx, target) {
    if (target.kind !== "connector") return undefined;
    if (await connectorClient(ctx, false).type(target.connector_id).catch(() => undefined)) return undefined;
    return new ApiError(422, "CONNECTOR_NOT_FOUND", `Connector ${target.connector_id} not found`, [{ path: "target.connector_id", message: "No such connector in this organization" }]);
  },
};
