// Local HTTP status endpoint: GET /status, GET /errors, POST /errors/{id}/retry.
// Bound to loopback by default: it has no authentication and can re-enqueue messages.
import http from "node:http";
import type { AddressInfo } from "node:net";
import type { MessageQueue } from "./message-queue";
import type { Metrics } from "./metrics";

export interface StatusServerOptions {
  host: string;
  port: number;
  listeners: { name: string; kind: string; protocol: string; url: string }[];
}

const ERROR_LIST_LIMIT = 500;

export function startStatusServer(
  options: StatusServerOptions,
  queue: MessageQueue,
  metrics: Metrics,
  onRequeued: () => void,
): Promise<{ port: number; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    const reply = (status: number, body: unknown) => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(body));
    };
    try {
      route(req, reply);
    } catch (error) {
      // A failing status read must never take the bridge down with it.
      reply(500, { error: { code: "INTERNAL", message: String(error) } });
    }
  });

  function route(req: http.IncomingMessage, reply: (status: number, body: unknown) => void): void {
    const url = new URL(req.url ?? "/", "http://status.local");
    const retry = /^\/errors\/([^/]+)\/retry$/.exec(url.pathname);
    if (req.method === "GET" && url.pathname === "/status") {
      const depths = queue.depths();
      const { lanes, ...snapshot } = metrics.snapshot();
      const protocols = [...new Set([...Object.keys(lanes), ...Object.keys(depths.protocols)])].sort();
      reply(200, {
        listener: options.listeners[0]?.name ?? null,
        listeners: options.listeners,
        queue_depth: depths.pending,
        error_queue_depth: depths.error,
        protocols: Object.fromEntries(
          protocols.map((p) => [
            p,
            {
              queue_depth: depths.protocols[p]?.pending ?? 0,
              error_queue_depth: depths.protocols[p]?.error ?? 0,
              worker: lanes[p] ?? null,
            },
          ]),
        ),
        ...snapshot,
        throughput_per_second: {
          received: snapshot.last_minute.received / 60,
          forwarded: snapshot.last_minute.forwarded / 60,
        },
      });
      return;
    }
    if (req.method === "GET" && url.pathname === "/errors") {
      const errors = queue.listErrors(ERROR_LIST_LIMIT).map((e) => ({
        id: e.id,
        protocol: e.protocol,
        origin: e.origin,
        error: { code: e.errorCode, message: e.errorMessage },
        failed_at: e.failedAt,
        sender: e.sender,
        control_id: e.controlId,
        message_type: e.messageType,
        received_at: e.receivedAt,
        remote_address: e.remoteAddress,
        raw: e.raw,
      }));
      reply(200, { errors });
      return;
    }
    if (req.method === "POST" && retry) {
      const id = decodeURIComponent(retry[1] ?? "");
      const result = queue.retry(id);
      if (result === "requeued") onRequeued();
      const status = { requeued: 200, not_found: 404, not_retryable: 409, conflict: 409 }[result];
      reply(status, { id, result });
      return;
    }
    reply(404, { error: { code: "NOT_FOUND", message: `${req.method} ${url.pathname} is not served here` } });
  }
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, () => {
      server.off("error", reject);
      resolve({
        port: (server.address() as AddressInfo).port,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            server.closeAllConnections();
          }),
      });
    });
  });
}
