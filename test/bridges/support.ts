// Bridge test helpers: the test plays the on-premises bridge through a real WebSocket to the
// Worker (the connect route's upgrade), and builds the deliveries the destinations' queue would.
import type { Delivery, Destination, QueuedMessage } from "../../src/features/destinations/model";
import { DEFAULT_RETRY } from "../../src/features/destinations/model";
import { call, type Tenant } from "../support/tenants";

export interface RegisteredBridge {
  id: string;
  name: string;
  credential: string;
  credential_prefix: string;
  status: string;
}

export async function registerBridge(t: Tenant, name = "Ward 3 bridge"): Promise<RegisteredBridge> {
  const res = await t.fetch("/api/v1/bridges", { method: "POST", json: { name } });
  if (res.status !== 201) throw new Error(`register: ${res.status} ${await res.text()}`);
  return (await res.json()) as RegisteredBridge;
}

export function connectRequest(credential: string | undefined, upgrade = true): Promise<Response> {
  const headers: Record<string, string> = {};
  if (upgrade) headers.upgrade = "websocket";
  if (credential) headers.authorization = `Bearer ${credential}`;
  return call("/api/v1/bridges/connect", { headers });
}

/** The bridge's end of the relay socket: what arrived, in order, and the close. */
export class TestBridgeSocket {
  readonly received: string[] = [];
  closed: { code: number; reason: string } | null = null;
  private readonly waiters: (() => void)[] = [];

  constructor(readonly ws: WebSocket) {
    ws.accept();
    ws.addEventListener("message", (event) => {
      this.received.push(typeof event.data === "string" ? event.data : "(binary)");
      this.wake();
    });
    ws.addEventListener("close", (event) => {
      this.closed = { code: event.code, reason: event.reason };
      this.wake();
    });
  }

  static async open(credential: string): Promise<TestBridgeSocket> {
    const res = await connectRequest(credential);
    if (res.status !== 101 || !res.webSocket) throw new Error(`connect: ${res.status} ${await res.text()}`);
    return new TestBridgeSocket(res.webSocket);
  }

  send(message: unknown): void {
    this.ws.send(typeof message === "string" ? message : JSON.stringify(message));
  }

  /** JSON messages of `type` received so far. */
  messages<T = Record<string, unknown>>(type: string): T[] {
    return this.received.filter((m) => m.startsWith("{")).map((m) => JSON.parse(m) as T & { type: string }).filter((m) => m.type === type);
  }

  async until<T>(check: () => T | undefined | null | false, label: string, timeoutMs = 10_000): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const value = check();
      if (value) return value;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${label}; received ${JSON.stringify(this.received)}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 50);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  close(code = 1000): void {
    try {
      this.ws.close(code, "test done");
    } catch {
      // already closed
    }
  }

  private wake(): void {
    for (const waiter of this.waiters.splice(0)) waiter();
  }
}

let seq = 0;

/** One attempt of one message of a `bridge` destination, as the destinations' queue hands it to the transport. */
export function bridgeDelivery(orgId: string, bridgeId: string, address: string, body: string, opts: { timeout_ms?: number; id?: string } = {}): Delivery {
  const destination: Destination = {
    id: crypto.randomUUID(),
    orgId,
    name: "LIS via bridge",
    target: { kind: "bridge", bridge_id: bridgeId, address },
    owner: null,
    ordering: "fifo",
    concurrency: 1,
    retry: DEFAULT_RETRY,
    timeout_ms: opts.timeout_ms ?? 5_000,
    http: { method: "POST", headers: { "x-site": "ward-3" } },
    signing_secrets: [],
    state: "active",
  };
  const message: QueuedMessage = {
    id: opts.id ?? `dlv-${++seq}-${crypto.randomUUID()}`,
    seq,
    key: "",
    state: "in_flight",
    body,
    content_type: "x-application/hl7-v2+er7",
    headers: {},
    path: null,
    method: null,
    source: null,
    label: null,
    enqueued_at: new Date().toISOString(),
    attempts: 0,
    reprocessed: 0,
    first_attempt_at: null,
    next_attempt_at: null,
    delivered_at: null,
    last_result: null,
  };
  return { destination, message, attempt: 1, signal: new AbortController().signal };
}
