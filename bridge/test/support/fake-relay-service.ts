// The service's end of the relay, for bridge tests: a real WebSocket server on loopback
// (the `ws` package) that checks the bridge's credential, sends transmits, records hellos and
// outcomes, and acknowledges outcomes unless told not to. Also a real MLLP receiver on loopback
// (the bridge's own MLLP server and HL7 adapter) that records what it was sent.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { WebSocket, WebSocketServer } from "ws";
import { startMllpServer } from "../../src/listeners/mllp/server";
import { createLogger } from "../../src/log";
import { hl7Adapter } from "../../src/protocols/hl7/adapter";
import type { AttemptResult, Transmit } from "../../src/relay/protocol";

export const TEST_CREDENTIAL = `cdisb_${Buffer.from("org-test").toString("base64url")}.00000000-0000-4000-8000-000000000001.${"A".repeat(43)}`;

export interface Outcome {
  delivery_id: string;
  result: AttemptResult;
  at: number;
}

export class FakeRelayService {
  readonly hellos: { version: string; host: string }[] = [];
  readonly outcomes: Outcome[] = [];
  /** When each accepted connection opened (ms), and the refused attempts. */
  readonly connectedAt: number[] = [];
  readonly refusedAt: number[] = [];
  /** Connections to refuse (401) before accepting one. */
  refuseNext = 0;
  /** Acknowledge outcomes (the bridge then forgets them). */
  autoAck = true;
  private socket: WebSocket | null = null;
  private readonly wss: WebSocketServer;

  private constructor(
    private readonly http: Server,
    readonly url: string,
  ) {
    this.wss = new WebSocketServer({ noServer: true });
    http.on("upgrade", (req, socket, head) => {
      if (req.headers.authorization !== `Bearer ${TEST_CREDENTIAL}` || this.refuseNext > 0) {
        if (this.refuseNext > 0) this.refuseNext--;
        this.refusedAt.push(Date.now());
        socket.end("HTTP/1.1 401 Unauthorized\r\ncontent-length: 0\r\n\r\n");
        return;
      }
      this.wss.handleUpgrade(req, socket, head, (ws) => this.accept(ws));
    });
  }

  static async start(): Promise<FakeRelayService> {
    const http = createServer((_req, res) => res.writeHead(404).end());
    await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
    const { port } = http.address() as AddressInfo;
    return new FakeRelayService(http, `http://127.0.0.1:${port}`);
  }

  get relayUrl(): string {
    return `${this.url.replace(/^http/, "ws")}/api/v1/bridges/connect`;
  }

  get connected(): boolean {
    return this.socket?.readyState === WebSocket.OPEN;
  }

  private accept(ws: WebSocket): void {
    this.socket?.close(4000, "replaced");
    this.socket = ws;
    this.connectedAt.push(Date.now());
    ws.on("message", (data) => {
      const text = data.toString();
      if (text === "ping") return ws.send("pong");
      const message = JSON.parse(text) as { type: string; version?: string; host?: string; delivery_id?: string; result?: AttemptResult };
      if (message.type === "hello") this.hellos.push({ version: message.version ?? "", host: message.host ?? "" });
      if (message.type === "outcome" && message.delivery_id && message.result) {
        this.outcomes.push({ delivery_id: message.delivery_id, result: message.result, at: Date.now() });
        if (this.autoAck) ws.send(JSON.stringify({ type: "ack", delivery_id: message.delivery_id }));
      }
    });
  }

  /** Sends a transmit down the open connection (throws without one). */
  transmit(t: Omit<Transmit, "type" | "headers" | "method" | "path" | "content_type" | "timeout_ms"> & Partial<Transmit>): void {
    if (!this.socket || this.socket.readyState !== WebSocket.OPEN) throw new Error("the bridge is not connected");
    const message: Transmit = { type: "transmit", headers: {}, method: null, path: null, content_type: "x-application/hl7-v2+er7", timeout_ms: 5_000, ...t };
    this.socket.send(JSON.stringify(message));
  }

  outcomesOf(deliveryId: string): Outcome[] {
    return this.outcomes.filter((o) => o.delivery_id === deliveryId);
  }

  /** Drops the connection as a network failure would. */
  drop(): void {
    this.socket?.terminate();
    this.socket = null;
  }

  async close(): Promise<void> {
    for (const client of this.wss.clients) client.terminate();
    this.wss.close();
    this.http.closeAllConnections();
    await new Promise<void>((resolve) => this.http.close(() => resolve()));
  }
}

/** A real MLLP receiver on loopback: ACKs AA (after `delayMs`), recording each message's MSH-10 in arrival order. */
export class MllpReceiver {
  readonly received: string[] = [];
  delayMs = 0;

  private constructor(private readonly server: { port: number; close(): Promise<void> }) {}

  static async start(): Promise<MllpReceiver> {
    const adapter = hl7Adapter({ alwaysAck: true });
    let self: MllpReceiver | undefined;
    const server = await startMllpServer(
      { host: "127.0.0.1", port: 0, maxFrameBytes: 1024 * 1024, encoding: "utf8", maxInFlightPerConnection: 16 },
      {
        message: async (payload, remote) => {
          const reading = adapter.read(payload.toString("utf8"), remote);
          self?.received.push(reading.header?.controlId ?? "(none)");
          if (self?.delayMs) await new Promise((resolve) => setTimeout(resolve, self?.delayMs));
          return adapter.reply(reading.header, reading.refusal ? "rejected" : "accepted", { replyId: `ACK-${reading.header?.controlId ?? ""}` });
        },
        oversize: () => null,
      },
      createLogger("error"),
    );
    self = new MllpReceiver(server);
    return self;
  }

  get port(): number {
    return this.server.port;
  }

  close(): Promise<void> {
    return this.server.close();
  }
}
