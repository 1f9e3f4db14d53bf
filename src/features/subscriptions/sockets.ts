// The websocket channel (Subscriptions Backport IG STU 1.1, as Medplum and HAPI serve it): one
// SubscriptionSockets Durable Object per organization, named orgObject(ns, orgId, SOCKETS_NAME),
// holds the organization's client sockets through the hibernation API. A client gets a token from
// `Subscription/{id}/$get-ws-binding-token` (issueToken: short-lived, this organization's only),
// opens `GET /fhir/r4/{org}/$subscription-ws` (routes.ts forwards the upgrade here) and sends
// `bind-with-token <token>`; the object then sends each bound subscription's handshake Bundle and
// makes a requested (or errored) one active. The destination queue's `websocket` transport
// (websocketTransport) pushes each notification to the sockets bound to its subscription: a
// Bundle as a text frame, an R4 empty notification as `ping <id>` (HAPI's). A socket of org B
// lives in org B's object and can only present tokens that object issued, so it never binds A's
// subscriptions.
import { failed, retryManagedNow, type AttemptResult, type Transport } from "../destinations";
import { OrgObject } from "../../platform/durable-objects/org-object";
import { orgObject } from "../../platform/durable-objects/object-names";
import type { Env } from "../../platform/env";
import type { OrgContext } from "../../platform/org-context";
import { fhirBaseOf, statusMessage } from "./messages";
import { applyOutcome } from "./observer";
import { SubscriptionStore } from "./store";
import { type SubscriptionSpec, parseSubscription } from "./subscription";

/** The organization's one sockets object under its namespace. */
export const SOCKETS_NAME = "subscription-sockets";

/** How long a binding token may be presented (a bound socket stays bound until it closes). */
export const TOKEN_TTL_MS = 5 * 60_000;

/** The header the socket route sets on the upgrade it forwards (the object is reachable only through the Worker). */
export const SOCKETS_ORG_HEADER = "x-cdis-subscriptions-org";

/** Close codes the object sends. */
export const CLOSE_PROTOCOL = 4002;

interface Attachment {
  /** Subscriptions this socket is bound to. */
  bound: string[];
}

interface StoredToken {
  orgId: string;
  subscriptionIds: string[];
  expiresAt: number;
}

const TOKEN_PREFIX = "token:";

async function tokenKey(token: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(token)));
  return TOKEN_PREFIX + [...digest].map((b) => b.toString(16).padStart(2, "0")).join("");
}

function newToken(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** What a client is told of a message it sent that was not served (an OperationOutcome, as Medplum answers). */
const outcome = (diagnostics: string, code = "invalid") => JSON.stringify({ resourceType: "OperationOutcome", issue: [{ severity: "error", code, diagnostics }] });

/** Bound by the Worker entry (src/main/entry.ts), which says how org contexts are built. */
export abstract class SubscriptionSockets extends OrgObject {
  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    // Keep-alives are answered by the runtime itself, without waking the object.
    this.ctx.setWebSocketAutoResponse(new WebSocketRequestResponsePair("ping", "pong"));
  }

  /** The upgrade from the socket route: accepts the socket, bound to nothing yet. */
  override async fetch(request: Request): Promise<Response> {
    if (request.headers.get("upgrade")?.toLowerCase() !== "websocket") return new Response("expected a WebSocket upgrade", { status: 426 });
    const orgId = request.headers.get(SOCKETS_ORG_HEADER);
    if (!orgId) return new Response("missing organization", { status: 400 });
    if (!(await this.ownedBy(orgId))) return new Response("wrong organization", { status: 403 });
    const { 0: client, 1: server } = new WebSocketPair();
    this.ctx.acceptWebSocket(server);
    server.serializeAttachment({ bound: [] } satisfies Attachment);
    return new Response(null, { status: 101, webSocket: client });
  }

  /** A token for binding `subscriptionIds` (already checked readable by the caller), valid for `ttlMs`. */
  async issueToken(orgId: string, subscriptionIds: string[], ttlMs = TOKEN_TTL_MS): Promise<{ token: string; expiresAt: string }> {
    if (!(await this.ownedBy(orgId))) throw new Error("wrong organization");
    const now = Date.now();
    const stale = [...(await this.ctx.storage.list<StoredToken>({ prefix: TOKEN_PREFIX }))].filter(([, t]) => t.expiresAt <= now).map(([k]) => k);
    if (stale.length) await this.ctx.storage.delete(stale);
    const token = newToken();
    const expiresAt = now + ttlMs;
    await this.ctx.storage.put(await tokenKey(token), { orgId, subscriptionIds, expiresAt } satisfies StoredToken);
    return { token, expiresAt: new Date(expiresAt).toISOString() };
  }

  /** Sends `text` to every socket bound to the subscription; answers how many it reached. */
  async push(orgId: string, subscriptionId: string, text: string): Promise<number> {
    if (!(await this.ownedBy(orgId))) return 0;
    let sent = 0;
    for (const ws of this.ctx.getWebSockets()) {
      const attachment = ws.deserializeAttachment() as Attachment | null;
      if (!attachment?.bound.includes(subscriptionId)) continue;
      try {
        ws.send(text);
        sent++;
      } catch {
        // Closing: not reached.
      }
    }
    return sent;
  }

  /** Sockets bound to the subscription (its destination's live figure, and the tests'). */
  async boundCount(orgId: string, subscriptionId: string): Promise<number> {
    if (!(await this.ownedBy(orgId))) return 0;
    return this.ctx.getWebSockets().filter((ws) => (ws.deserializeAttachment() as Attachment | null)?.bound.includes(subscriptionId)).length;
  }

  /** The subscription was deleted or left the websocket channel: its sockets stop receiving it. */
  async unbindAll(orgId: string, subscriptionId: string): Promise<void> {
    if (!(await this.ownedBy(orgId))) return;
    for (const ws of this.ctx.getWebSockets()) {
      const attachment = ws.deserializeAttachment() as Attachment | null;
      if (attachment?.bound.includes(subscriptionId)) ws.serializeAttachment({ bound: attachment.bound.filter((id) => id !== subscriptionId) } satisfies Attachment);
    }
  }

  override async webSocketMessage(ws: WebSocket, message: string | ArrayBuffer): Promise<void> {
    if (typeof message !== "string") return this.closeSocket(ws, CLOSE_PROTOCOL, "text frames only");
    const [verb = "", arg = ""] = message.trim().split(/\s+/, 2);
    if (verb === "bind-with-token" || verb === "unbind-with-token") return this.withToken(ws, verb, arg);
    if (verb === "bind") return ws.send(outcome("bind <id> is not served: get a token from Subscription/{id}/$get-ws-binding-token and send bind-with-token <token>", "not-supported"));
    ws.send(outcome(`Unknown message ${verb.slice(0, 40)}: send bind-with-token <token>`));
  }

  override async webSocketClose(ws: WebSocket, code: number, reason: string): Promise<void> {
    this.closeSocket(ws, code === 1005 || code === 1006 ? 1000 : code, reason);
  }

  override async webSocketError(ws: WebSocket): Promise<void> {
    this.closeSocket(ws, 1011, "socket error");
  }

  private async withToken(ws: WebSocket, verb: "bind-with-token" | "unbind-with-token", token: string): Promise<void> {
    const identity = await this.ctx.storage.get<string>("org");
    const stored = token ? await this.ctx.storage.get<StoredToken>(await tokenKey(token)) : undefined;
    if (!identity || !stored || stored.orgId !== identity || stored.expiresAt <= Date.now()) return ws.send(outcome("The token is not valid (unknown or expired): get a new one from $get-ws-binding-token", "security"));
    const attachment = (ws.deserializeAttachment() as Attachment | null) ?? { bound: [] };
    if (verb === "unbind-with-token") {
      ws.serializeAttachment({ bound: attachment.bound.filter((id) => !stored.subscriptionIds.includes(id)) } satisfies Attachment);
      return;
    }
    const ctx = await this.orgContext(identity);
    const store = new SubscriptionStore(ctx.d1, identity);
    const bound = new Set(attachment.bound);
    const handshakes: { spec: SubscriptionSpec; eventCount: number }[] = [];
    for (const id of stored.subscriptionIds) {
      const row = await store.get(id);
      const parsed = row ? parseSubscription(JSON.parse(row.resource), id) : undefined;
      if (!row || !parsed?.ok || parsed.spec.channel !== "websocket") {
        ws.send(outcome(`Subscription/${id} is not a websocket subscription of this organization`, "not-found"));
        continue;
      }
      bound.add(id);
      handshakes.push({ spec: { ...parsed.spec, status: row.status as SubscriptionSpec["status"] }, eventCount: row.eventCount });
    }
    ws.serializeAttachment({ bound: [...bound] } satisfies Attachment);
    for (const { spec, eventCount } of handshakes) {
      const hello = statusMessage(spec, fhirBaseOf(ctx), "handshake", eventCount, `${spec.id}:handshake`);
      ws.send(hello.body === "" ? `bound ${spec.id}` : hello.body);
      // The handshake reached the client: a requested (or errored) subscription is active.
      await applyOutcome(ctx, spec.id, { next: "delivered", failureStreak: 0 });
      // Notifications that waited for a bound socket go out now, not at their next retry.
      await retryManagedNow(ctx, { kind: "subscription", id: spec.id });
    }
  }

  /** The object serves one organization: the first to use it. */
  private async ownedBy(orgId: string): Promise<boolean> {
    const owner = await this.ctx.storage.get<string>("org");
    if (owner) return owner === orgId;
    await this.ctx.storage.put("org", orgId);
    return true;
  }

  private closeSocket(ws: WebSocket, code: number, reason: string): void {
    ws.serializeAttachment({ bound: [] } satisfies Attachment);
    try {
      ws.close(code, reason);
    } catch {
      // Already closed.
    }
  }
}

export const socketsOf = (ctx: OrgContext) => orgObject(ctx.env.SUBSCRIPTION_SOCKETS, ctx.orgId, SOCKETS_NAME);

/** The text a notification is on a socket: its Bundle, or `ping <id>` for an R4 empty notification. */
export const socketText = (subscriptionId: string, body: string) => (body === "" ? `ping ${subscriptionId}` : body);

/**
 * The transport of `websocket` targets: delivered once the notification went to at least one
 * socket bound to the subscription; with none bound, a retryable `unreachable` failure (the queue
 * retries it with backoff until a client binds, or the horizon dead-letters it).
 */
export const websocketTransport: Transport = {
  async deliver(ctx, { destination, message }): Promise<AttemptResult> {
    const target = destination.target;
    if (target.kind !== "websocket") return failed("configuration", `the websocket transport cannot deliver to a ${target.kind} target`);
    if (destination.orgId !== ctx.orgId) return failed("configuration", "the destination is not this organization's");
    try {
      const sent = await socketsOf(ctx).push(ctx.orgId, target.subscription_id, socketText(target.subscription_id, message.body));
      return sent > 0 ? { ok: true, response: `sent to ${sent} bound socket${sent === 1 ? "" : "s"}` } : failed("unreachable", `no websocket is bound to Subscription/${target.subscription_id}`);
    } catch (e) {
      return failed("unreachable", `the subscription sockets failed: ${e instanceof Error ? e.message : String(e)}`);
    }
  },
};
