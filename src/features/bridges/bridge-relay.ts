// BridgeRelay: one Durable Object per (organization, bridge), named orgObject(ns, orgId, bridgeId),
// holding that bridge's WebSocket through the hibernation API. The connect route hands it the
// authenticated upgrade; the bridge transport calls `transmit`, which sends the delivery down the
// socket and waits for the bridge's outcome. Between deliveries the object may hibernate: the
// socket stays open, the runtime answers the bridge's "ping" with "pong" itself, and the time of
// that answer is the bridge's last sign of life.
import { OrgObject } from "../../platform/durable-objects/org-object";
import type { Env } from "../../platform/env";
import type { AttemptResult } from "../destinations";
import { BridgeMessage, PING, PONG, type TransmitMessage } from "./protocol";

/** The bridge's live state, as GET /api/v1/bridges shows it. */
export interface BridgeStatus {
  status: "online" | "offline";
  connected_since: string | null;
  last_seen_at: string | null;
  version: string | null;
  host: string | null;
}

/** What the transport hands the relay for one attempt. */
export type RelayDelivery = Omit<TransmitMessage, "type">;

/** Headers the connect route sets on the upgrade it forwards (the object is reachable only through the Worker). */
export const RELAY_ORG_HEADER = "x-cdis-bridge-org";
export const RELAY_BRIDGE_HEADER = "x-cdis-bridge-id";

/** Close codes the relay sends. */
export const CLOSE_REPLACED = 4000;
export const CLOSE_REMOVED = 4001;
export const CLOSE_PROTOCOL = 4002;

/** How long past the delivery's own timeout the relay waits for the bridge's outcome (queueing and reporting on the bridge). */
export const OUTCOME_GRACE_MS = 5_000;

interface Attachment {
  connectionId: string;
  connectedSince: string;
}

interface Identity {
  orgId: string;
  bridgeId: string;
}

interface Waiter {
  connectionId: string;
  resolve: (result: AttemptResult) => void;
}

const offline = (message: string): AttemptResult => ({ ok: false, failure: { class: "bridge_offline", message } });

/** Bound by the Worker entry (src/main/entry.ts), which says how org contexts are built. */
export abstract class BridgeRelay extends OrgObject {
  /** Transmits waiting for their outcome, by delivery id (in memory: a waiting RPC keeps the object awake). */
  private readonly waiting = new Map<string, Waiter[]>();

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.ctx.setWebSocketAutoResponse(new WebSocketRequestResponsePair(PING, PONG));
  }

  /** The authenticated upgrade from the connect route: accepts the socket, closing any earlier one of this bridge. */
  override async fetch(request: Request): Promise<Response> {
    if (request.headers.get("upgrade")?.toLowerCase() !== "websocket") return new Response("expected a WebSocket upgrade", { status: 426 });
    const orgId = request.headers.get(RELAY_ORG_HEADER);
    const bridgeId = request.headers.get(RELAY_BRIDGE_HEADER);
    if (!orgId || !bridgeId) return new Response("missing bridge identity", { status: 400 });
    const identity = await this.ctx.storage.get<Identity>("identity");
    if (identity && (identity.orgId !== orgId || identity.bridgeId !== bridgeId)) return new Response("wrong bridge", { status: 403 });
    if (!identity) await this.ctx.storage.put("identity", { orgId, bridgeId } satisfies Identity);

    for (const old of this.ctx.getWebSockets()) this.closeSocket(old, CLOSE_REPLACED, "replaced by a newer connection of this bridge");

    const { 0: client, 1: server } = new WebSocketPair();
    const now = new Date().toISOString();
    this.ctx.acceptWebSocket(server);
    server.serializeAttachment({ connectionId: crypto.randomUUID(), connectedSince: now } satisfies Attachment);
    await this.ctx.storage.put("last_seen_at", now);
    return new Response(null, { status: 101, webSocket: client });
  }

  override async webSocketMessage(ws: WebSocket, message: string | ArrayBuffer): Promise<void> {
    if (typeof message !== "string") return this.closeSocket(ws, CLOSE_PROTOCOL, "text frames only");
    let parsed: BridgeMessage;
    try {
      const result = BridgeMessage.safeParse(JSON.parse(message));
      if (!result.success) return this.closeSocket(ws, CLOSE_PROTOCOL, "unknown message");
      parsed = result.data;
    } catch {
      return this.closeSocket(ws, CLOSE_PROTOCOL, "messages are JSON");
    }
    const now = new Date().toISOString();
    if (parsed.type === "hello") {
      await this.ctx.storage.put({ last_seen_at: now, version: parsed.version, host: parsed.host });
      return;
    }
    await this.ctx.storage.put("last_seen_at", now);
    // Every outcome is acknowledged, awaited or not: an attempt that no longer waits (timed out,
    // the object restarted) is retried by the queue, and the bridge answers that retry with the
    // outcome it stored, without delivering again.
    const waiters = this.waiting.get(parsed.delivery_id);
    this.waiting.delete(parsed.delivery_id);
    for (const waiter of waiters ?? []) waiter.resolve(parsed.result);
    ws.send(JSON.stringify({ type: "ack", delivery_id: parsed.delivery_id }));
  }

  override async webSocketClose(ws: WebSocket, code: number, reason: string): Promise<void> {
    await this.ended(ws, code === 1005 || code === 1006 ? 1000 : code, reason);
  }

  override async webSocketError(ws: WebSocket): Promise<void> {
    await this.ended(ws, 1011, "socket error");
  }

  /**
   * One attempt: sends the delivery down the bridge's socket and waits for its outcome. Answers
   * bridge_offline without a socket or when the socket goes mid-delivery, timeout without an
   * outcome in time. Never throws for a failed delivery.
   */
  async transmit(orgId: string, delivery: RelayDelivery): Promise<AttemptResult> {
    const identity = await this.ctx.storage.get<Identity>("identity");
    if (!identity || identity.orgId !== orgId) return offline("the bridge has never connected");
    const current = this.current();
    if (!current) return offline("the bridge is not connected");
    let timer: ReturnType<typeof setTimeout> | undefined;
    let waiter: Waiter | undefined;
    const outcome = new Promise<AttemptResult>((resolve) => {
      waiter = { connectionId: current.attachment.connectionId, resolve };
      this.waiting.set(delivery.delivery_id, [...(this.waiting.get(delivery.delivery_id) ?? []), waiter]);
      const limit = delivery.timeout_ms + OUTCOME_GRACE_MS;
      timer = setTimeout(() => {
        this.failWaiting((_, w) => w === waiter, "", { ok: false, failure: { class: "timeout", message: `no outcome from the bridge within ${limit} ms` } });
      }, limit);
    });
    try {
      current.ws.send(JSON.stringify({ type: "transmit", ...delivery } satisfies TransmitMessage));
    } catch (e) {
      this.failWaiting((_, w) => w === waiter, `the bridge's connection failed: ${String(e)}`);
    }
    try {
      return await outcome;
    } finally {
      clearTimeout(timer);
    }
  }

  /** The bridge's live state: online while a socket is open; last seen at its last message or ping. */
  async status(): Promise<BridgeStatus> {
    const stored = await this.ctx.storage.get<string | null>(["last_seen_at", "version", "host"]);
    let lastSeen = stored.get("last_seen_at") ?? null;
    const current = this.current();
    if (current) {
      const pinged = this.ctx.getWebSocketAutoResponseTimestamp(current.ws);
      if (pinged && (!lastSeen || pinged.toISOString() > lastSeen)) lastSeen = pinged.toISOString();
    }
    return {
      status: current ? "online" : "offline",
      connected_since: current?.attachment.connectedSince ?? null,
      last_seen_at: lastSeen,
      version: stored.get("version") ?? null,
      host: stored.get("host") ?? null,
    };
  }

  /** The bridge was deleted: its socket is closed and the object forgets it. */
  async remove(): Promise<void> {
    for (const ws of this.ctx.getWebSockets()) this.closeSocket(ws, CLOSE_REMOVED, "the bridge was deleted");
    this.failWaiting(() => true, "the bridge was deleted");
    await this.ctx.storage.deleteAll();
  }

  /** The credential was rotated: the connection made with the old one is closed (the bridge reconnects with the new one). */
  async disconnect(reason: string): Promise<void> {
    for (const ws of this.ctx.getWebSockets()) this.closeSocket(ws, CLOSE_REPLACED, reason);
    this.failWaiting(() => true, reason);
  }

  private async ended(ws: WebSocket, code: number, reason: string): Promise<void> {
    const attachment = ws.deserializeAttachment() as Attachment | null;
    const pinged = this.ctx.getWebSocketAutoResponseTimestamp(ws);
    const now = new Date().toISOString();
    await this.ctx.storage.put("last_seen_at", pinged && pinged.toISOString() > now ? pinged.toISOString() : now);
    if (attachment) this.failWaiting((_, waiter) => waiter.connectionId === attachment.connectionId, "the bridge disconnected mid-delivery");
    try {
      ws.close(code, reason);
    } catch {
      // Already closed.
    }
  }

  private closeSocket(ws: WebSocket, code: number, reason: string): void {
    // Forget it first: getWebSockets() lists a socket until its close completes.
    const attachment = ws.deserializeAttachment() as Attachment | null;
    ws.serializeAttachment(null);
    if (attachment) this.failWaiting((_, waiter) => waiter.connectionId === attachment.connectionId, reason);
    try {
      ws.close(code, reason);
    } catch {
      // Already closed.
    }
  }

  /** The open socket of this bridge (a replaced one, still closing, has no attachment). */
  private current(): { ws: WebSocket; attachment: Attachment } | undefined {
    for (const ws of this.ctx.getWebSockets()) {
      const attachment = ws.deserializeAttachment() as Attachment | null;
      if (attachment) return { ws, attachment };
    }
    return undefined;
  }

  private failWaiting(match: (deliveryId: string, waiter: Waiter) => boolean, message: string, result: AttemptResult = offline(message)): void {
    for (const [id, list] of this.waiting) {
      const keep = list.filter((waiter) => {
        if (!match(id, waiter)) return true;
        waiter.resolve(result);
        return false;
      });
      if (keep.length > 0) this.waiting.set(id, keep);
      else this.waiting.delete(id);
    }
  }
}
