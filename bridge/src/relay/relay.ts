// The bridge's outbound relay: one WebSocket to the service (GET /api/v1/bridges/connect with the
// bridge's credential), reconnecting with capped exponential backoff and jitter. The service sends
// `transmit`s; each is stored (outbox.ts) before it is delivered (deliver.ts), its outcome stored
// before it is reported, and the service's `ack` marks it reported. Outcomes not yet acknowledged
// are reported again after every reconnect; a delivery id already delivered is never delivered
// again (its stored outcome answers, or the delivery in flight will), while one whose stored
// outcome is a failure is delivered again when the service retries it.
import WebSocket from "ws";
import { backoffDelay } from "../backoff";
import type { Logger } from "../log";
import type { AllowList } from "./allow-list";
import { deliver } from "./deliver";
import { MllpLinks } from "./mllp";
import type { RelayOutbox } from "./outbox";
import { type AttemptResult, type BridgeMessage, PING, PONG, parseServiceMessage, type Transmit } from "./protocol";

export interface RelayOptions {
  /** ws(s)://…/api/v1/bridges/connect */
  url: string;
  credential: string;
  allow: AllowList;
  retryBaseMs: number;
  retryMaxMs: number;
  /** How often a "ping" goes up; a connection silent for two of these is dropped and remade. */
  pingMs: number;
  version: string;
  host: string;
  retentionHours: number;
}

export interface RelayState {
  connected: boolean;
  connects: number;
  in_flight: number;
  last_error: string | null;
}

const PRUNE_INTERVAL_MS = 60 * 60 * 1000;
const STOP_WAIT_MS = 5_000;

export class Relay {
  private ws: WebSocket | null = null;
  private attempt = 0;
  private stopped = false;
  private reconnectTimer: NodeJS.Timeout | null = null;
  private pingTimer: NodeJS.Timeout | null = null;
  private pruneTimer: NodeJS.Timeout | null = null;
  private lastHeard = 0;
  private readonly inFlight = new Map<string, Promise<void>>();
  private connects = 0;
  private lastError: string | null = null;
  /** The kept-open MLLP connections, one per destination. */
  private readonly links = new MllpLinks();

  constructor(
    private readonly outbox: RelayOutbox,
    private readonly options: RelayOptions,
    private readonly log: Logger,
  ) {}

  /** Resumes what a previous run left undelivered, then connects. */
  start(): void {
    for (const row of this.outbox.undelivered()) this.startDelivery(row.transmit);
    const prune = () => {
      const removed = this.outbox.pruneReported(new Date(Date.now() - this.options.retentionHours * 3600 * 1000));
      if (removed > 0) this.log.info("relay_pruned", { removed });
    };
    prune();
    this.pruneTimer = setInterval(prune, PRUNE_INTERVAL_MS);
    this.pruneTimer.unref();
    this.connect();
  }

  state(): RelayState {
    return { connected: this.ws?.readyState === WebSocket.OPEN, connects: this.connects, in_flight: this.inFlight.size, last_error: this.lastError };
  }

  /** Closes the connection; waits briefly for deliveries in flight (their outcomes are stored, reported after the next start). */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const timer of [this.reconnectTimer, this.pingTimer, this.pruneTimer]) if (timer) clearTimeout(timer);
    this.ws?.close(1000, "bridge stopping");
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([Promise.allSettled([...this.inFlight.values()]), new Promise((resolve) => (timer = setTimeout(resolve, STOP_WAIT_MS)))]);
    clearTimeout(timer);
    this.links.closeAll();
  }

  private connect(): void {
    if (this.stopped) return;
    const ws = new WebSocket(this.options.url, { headers: { authorization: `Bearer ${this.options.credential}` }, handshakeTimeout: 10_000 });
    this.ws = ws;
    ws.on("unexpected-response", (_req, res) => {
      this.lastError = `the service answered ${res.statusCode} to the relay's connect`;
      this.log.error("relay_refused", { status: res.statusCode, hint: res.statusCode === 401 ? "check BRIDGE_CREDENTIAL" : undefined });
      res.resume();
      ws.terminate();
    });
    ws.on("open", () => {
      this.attempt = 0;
      this.connects++;
      this.lastError = null;
      this.lastHeard = Date.now();
      this.log.info("relay_connected", { url: this.options.url });
      this.send({ type: "hello", version: this.options.version, host: this.options.host });
      for (const row of this.outbox.unreported()) if (row.outcome) this.send({ type: "outcome", delivery_id: row.transmit.delivery_id, result: row.outcome });
      this.pingTimer = setInterval(() => {
        if (Date.now() - this.lastHeard > 2 * this.options.pingMs) {
          this.log.warn("relay_silent", { ms: Date.now() - this.lastHeard });
          ws.terminate();
          return;
        }
        if (ws.readyState === WebSocket.OPEN) ws.send(PING);
      }, this.options.pingMs);
    });
    ws.on("message", (data, isBinary) => {
      this.lastHeard = Date.now();
      if (isBinary) return;
      const text = data.toString();
      if (text === PONG) return;
      const message = parseServiceMessage(text);
      if (!message) {
        this.log.warn("relay_unknown_message", { excerpt: text.slice(0, 200) });
        return;
      }
      if (message.type === "ack") this.outbox.reported(message.delivery_id);
      else this.onTransmit(message);
    });
    ws.on("error", (error) => {
      this.lastError = error.message;
      this.log.debug("relay_error", { error: error.message });
    });
    ws.on("close", (code, reason) => {
      if (this.pingTimer) clearInterval(this.pingTimer);
      this.pingTimer = null;
      if (this.ws === ws) this.ws = null;
      if (this.stopped) return;
      const delay = backoffDelay(++this.attempt, this.options.retryBaseMs, this.options.retryMaxMs);
      this.log.info("relay_disconnected", { code, reason: reason.toString(), retry_in_ms: delay });
      this.reconnectTimer = setTimeout(() => this.connect(), delay);
    });
  }

  private onTransmit(transmit: Transmit): void {
    const held = this.outbox.get(transmit.delivery_id);
    // Reprocessed by the operator (a higher round): sent again, whatever the stored outcome.
    if (held?.outcome && (transmit.round ?? 0) > (held.transmit.round ?? 0)) {
      if (this.outbox.reprocess(transmit)) this.startDelivery(transmit);
      return;
    }
    if (held?.outcome?.ok) {
      // Delivered before: the stored outcome answers, nothing is sent again.
      this.send({ type: "outcome", delivery_id: transmit.delivery_id, result: held.outcome });
      return;
    }
    if (held?.outcome) {
      // It failed (AE, refused, timeout…) and the service retries: that is a new attempt, not a repeat.
      if (this.outbox.retry(transmit)) this.startDelivery(transmit);
      return;
    }
    if (held) {
      // Stored and not yet delivered: in flight (its outcome will be reported), or resumed now.
      if (!this.inFlight.has(transmit.delivery_id)) this.startDelivery(held.transmit);
      return;
    }
    if (this.outbox.add(transmit)) this.startDelivery(transmit);
  }

  private startDelivery(transmit: Transmit): void {
    const id = transmit.delivery_id;
    if (this.inFlight.has(id)) return;
    const run = deliver(transmit, this.options.allow, this.links)
      .catch((e: unknown): AttemptResult => ({ ok: false, failure: { class: "configuration", message: String(e) } }))
      .then((result) => {
        try {
          this.outbox.complete(id, result);
        } catch (e) {
          // The bridge is stopping (the queue closed): the row stays undelivered and is delivered again on start.
          this.log.warn("relay_outcome_not_stored", { delivery_id: id, error: String(e) });
          return;
        }
        const stored = this.outbox.get(id)?.outcome ?? result;
        this.log.debug("relay_delivered", { delivery_id: id, ok: stored.ok, failure: stored.failure?.class });
        this.send({ type: "outcome", delivery_id: id, result: stored });
      })
      .finally(() => this.inFlight.delete(id));
    this.inFlight.set(id, run);
  }

  private send(message: BridgeMessage): void {
    if (this.ws?.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify(message));
  }
}
