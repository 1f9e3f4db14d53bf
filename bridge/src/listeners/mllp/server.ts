// The MLLP listener (plain TCP or TLS): decodes frames per connection, hands each to the
// intake as soon as it arrives, and writes the ACKs back in the order the frames came.
import net from "node:net";
import tls from "node:tls";
import type { Logger } from "../../log";
import { frame, MllpDecoder } from "./framing";

export interface FrameHandler {
  message(payload: Buffer, remoteAddress: string): Promise<string | null>;
  oversize(head: Buffer, length: number): string | null;
}

export interface MllpServerOptions {
  host: string;
  port: number;
  maxFrameBytes: number;
  encoding: BufferEncoding;
  tls?: { cert: Buffer; key: Buffer };
  /** Frames awaiting their ACK on one connection before the bridge stops reading from it. */
  maxInFlightPerConnection: number;
}

export interface RunningServer {
  port: number;
  close(): Promise<void>;
}

export function startMllpServer(options: MllpServerOptions, handler: FrameHandler, log: Logger): Promise<RunningServer> {
  const sockets = new Set<net.Socket>();
  const onConnection = (socket: net.Socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    serveConnection(socket, options, handler, log);
  };
  const server = options.tls
    ? tls.createServer({ cert: options.tls.cert, key: options.tls.key }, onConnection)
    : net.createServer(onConnection);
  server.on("tlsClientError", (error: Error) => log.warn("tls_client_error", { error: error.message }));
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, () => {
      server.off("error", reject);
      server.on("error", (error) => log.error("mllp_server_error", { error: error.message }));
      const address = server.address() as net.AddressInfo;
      resolve({
        port: address.port,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            for (const socket of sockets) socket.destroy();
          }),
      });
    });
  });
}

function serveConnection(socket: net.Socket, options: MllpServerOptions, handler: FrameHandler, log: Logger): void {
  const remote = `${socket.remoteAddress}:${socket.remotePort}`;
  const decoder = new MllpDecoder(options.maxFrameBytes);
  let replies: Promise<void> = Promise.resolve();
  let inFlight = 0;
  socket.setNoDelay(true);
  log.debug("connection_opened", { remote_address: remote });

  const send = (ack: string | null) => {
    if (ack !== null && !socket.destroyed) socket.write(frame(Buffer.from(ack, options.encoding)));
  };
  socket.on("data", (data: Buffer) => {
    for (const event of decoder.push(data)) {
      // Start the work now (so the queue sees frames in order), reply in order via the chain.
      const reply =
        event.kind === "frame"
          ? handler.message(event.payload, remote)
          : Promise.resolve(handler.oversize(event.head, event.length));
      inFlight++;
      if (inFlight >= options.maxInFlightPerConnection) socket.pause();
      replies = replies
        .then(() => reply)
        .then(send)
        .catch((error: unknown) => {
          log.error("reply_failed", { remote_address: remote, error: String(error) });
          socket.destroy();
        })
        .finally(() => {
          inFlight--;
          if (socket.isPaused() && inFlight < options.maxInFlightPerConnection / 2) socket.resume();
        });
    }
  });
  socket.on("error", (error) => log.debug("connection_error", { remote_address: remote, error: error.message }));
  socket.on("close", () => log.debug("connection_closed", { remote_address: remote }));
}
