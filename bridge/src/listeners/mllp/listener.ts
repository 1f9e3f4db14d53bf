// The MLLP listener: an MLLP server (plain TCP or TLS) whose frames, decoded with the configured
// character set, go to an intake; replies go back in the same character set.
import type { Listener, MessageSink } from "../../listener";
import type { Logger } from "../../log";
import { type RunningServer, startMllpServer } from "./server";

export interface MllpListenerOptions {
  name: string;
  host: string;
  port: number;
  tls?: { cert: Buffer; key: Buffer };
  encoding: BufferEncoding;
  maxFrameBytes: number;
}

/** Frames awaiting their reply on one connection before the bridge stops reading from it. */
const MAX_IN_FLIGHT_PER_CONNECTION = 256;

export function mllpListener(options: MllpListenerOptions, protocol: string, intake: MessageSink, log: Logger): Listener {
  let server: RunningServer | null = null;
  return {
    name: options.name,
    kind: "mllp",
    protocol,
    async start() {
      server = await startMllpServer(
        { ...options, maxInFlightPerConnection: MAX_IN_FLIGHT_PER_CONNECTION },
        {
          message: (payload, remote) => intake.accept(payload.toString(options.encoding), remote),
          oversize: (head, length) =>
            intake.refuse(
              head.toString(options.encoding),
              `message of ${length} bytes exceeds the ${options.maxFrameBytes}-byte frame limit`,
            ),
        },
        log,
      );
      return { url: `${options.tls ? "mllps" : "mllp"}://${options.host}:${server.port}`, port: server.port };
    },
    stop: async () => {
      await server?.close();
    },
  };
}
